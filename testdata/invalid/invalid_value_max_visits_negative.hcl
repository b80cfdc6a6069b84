# max_visits = -1: a visit bound must be at least 1.
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

step "build" {
  adapter    = "noop"
  max_visits = -1
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
