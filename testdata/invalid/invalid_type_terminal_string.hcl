# terminal = "yes": terminal is a bool, not a string.
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

step "build" {
  adapter = "noop"
  outcome "success" { next = "done" }
}

state "done" { terminal = "yes" }
