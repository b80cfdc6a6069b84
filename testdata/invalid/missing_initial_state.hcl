# The workflow header has no initial_state.
workflow "demo" {
  version      = "1"
  target_state = "done"
}

step "build" {
  adapter = "noop"
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
