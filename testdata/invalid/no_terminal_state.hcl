# No state is terminal: a run could never end ("done" forgot terminal = true, which
# also makes it a dead end).
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

step "build" {
  adapter = "noop"
  outcome "success" { next = "done" }
}

state "done" {
  success = true
}
