# initial_state names "biuld", which does not exist (the step is "build").
workflow "demo" {
  version       = "1"
  initial_state = "biuld"
  target_state  = "done"
}

step "build" {
  adapter = "noop"
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
