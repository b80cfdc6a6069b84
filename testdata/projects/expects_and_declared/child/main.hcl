workflow {
  name          = "child"
  version       = "1"
  initial_state = "work"
  target_state  = "done"
  expects {
    adapters = [adapter.shell.default]
  }
}

adapter "shell" "default" {}

step "work" {
  target = adapter.shell.default
  input { command = "true" }
  outcome "success" { next = state.done }
}

state "done" { terminal = true }
