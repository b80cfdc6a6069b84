# Step "build" declares outcome "success" twice.
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

step "build" {
  adapter = "noop"
  outcome "success" { next = "done" }
  outcome "success" { next = "failed" }
}

state "done" { terminal = true }
state "failed" {
  terminal = true
  success  = false
}
