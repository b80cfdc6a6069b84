# The header has no target_state (a missing_target_state warning); the adapter's
# on_crash = "restart" is not one of fail, respawn, abort_run (the error).
workflow "demo" {
  version       = "1"
  initial_state = "build"
}

adapter "shell" "default" {
  on_crash = "restart"
}

step "build" {
  target = adapter.shell.default
  input { command = "make" }
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
