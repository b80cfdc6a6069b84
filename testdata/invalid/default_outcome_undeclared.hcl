# default_outcome names "sucess", which is not one of the step's outcomes.
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

step "build" {
  adapter         = "noop"
  default_outcome = "sucess"
  outcome "success" { next = "done" }
  outcome "failure" { next = "failed" }
}

state "done" { terminal = true }
state "failed" {
  terminal = true
  success  = false
}
