# A string that is never closed: initial_state = "build
workflow "demo" {
  version       = "1"
  initial_state = "build
  target_state  = "done"
}

step "build" {
  adapter = "noop"
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
