workflow {
  name          = "e14"
  version       = "1"
  initial_state = "a"
  target_state  = "done"
}

adapter "shell" "default" {}

step "a" {
  target = adapter.shell.default
  input {
    command = ["echo", "hi"]
  }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.done }
}

state "done" {
  terminal = true
}
