# return leaves a workflow body; at the top level there is nothing to return from.
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

adapter "shell" "default" {}

step "build" {
  target = adapter.shell.default
  input { command = "make" }
  outcome "success" { next = "return" }
  outcome "failure" { next = "done" }
}

state "done" { terminal = true }
