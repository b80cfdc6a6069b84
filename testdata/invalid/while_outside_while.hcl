# while.* exists only in a step that iterates with while.
workflow {
  name          = "demo"
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

adapter "shell" "default" {}

step "build" {
  target   = adapter.shell.default
  for_each = ["a"]
  input { command = "echo ${while.index}" }
  outcome "all_succeeded" { next = state.done }
  outcome "any_failed"    { next = state.done }
}

state "done" {
  terminal = true
  success  = true
}
