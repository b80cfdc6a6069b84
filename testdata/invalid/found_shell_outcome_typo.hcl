workflow {
  name          = "e3"
  version       = "1"
  initial_state = "execute"
  target_state  = "done"
}

adapter "shell" "default" {}

step "execute" {
  target = adapter.shell.default
  input { command = "echo hi" }
  outcome "succes" { next = state.done }
  outcome "failure" { next = state.done }
}

state "done" {
  terminal = true
}
