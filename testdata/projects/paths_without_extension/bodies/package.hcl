workflow {
  name          = "package"
  initial_state = "pack"
  target_state  = "packed"
}

step "pack" {
  target = adapter.shell.default
  input { command = "echo packed" }
  outcome "success" { next = state.packed }
}

state "packed" { terminal = true }
