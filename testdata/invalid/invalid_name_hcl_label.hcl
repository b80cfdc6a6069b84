# A step labelled "run tests": names may not contain spaces.
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

step "build" {
  adapter = "noop"
  outcome "success" { next = "run tests" }
}

step "run tests" {
  adapter = "noop"
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
