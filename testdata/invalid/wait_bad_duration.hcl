# wait duration "5 minutes" is not a Go-style duration (write "5m").
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
  duration = "5 minutes"
  next     = "done"
}

state "done" { terminal = true }
