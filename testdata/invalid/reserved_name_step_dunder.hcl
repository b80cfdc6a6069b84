# A step named "__x": names starting with "__" are kept for criteria.
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

step "build" {
  adapter = "noop"
  outcome "success" { next = "done" }
}

step "__x" {
  adapter = "noop"
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
