# Step "build" does not iterate, so it can never end in all_succeeded.
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

step "build" {
  adapter = "noop"
  outcome "success"       { next = "done" }
  outcome "all_succeeded" { next = "done" }
}

state "done" { terminal = true }
