# wait "cool_down" has neither duration nor signal.
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

step "build" {
  adapter = "noop"
  outcome "success" { next = "cool_down" }
}

wait "cool_down" {
  next = "done"
}

state "done" { terminal = true }
