# A step block without its name label.
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

step "build" {
  adapter = "noop"
  outcome "success" { next = "done" }
}

step {
  adapter = "noop"
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
