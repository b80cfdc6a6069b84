# The usual success/failure pair copied onto a for_each step that routes all_succeeded too:
# item "y" never ran (a new-user trial).
workflow {
  name          = "e18"
  version       = "1"
  initial_state = "a"
  target_state  = "done"
}

adapter "shell" "default" {}

step "a" {
  target   = adapter.shell.default
  for_each = ["x", "y"]
  input {
    command = "echo ${each.value}"
  }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.done }
  outcome "all_succeeded" { next = state.done }
  outcome "any_failed" { next = state.done }
}

state "done" {
  terminal = true
}
