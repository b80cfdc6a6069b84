# Two workflow headers in one file.
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

workflow "demo2" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

step "build" {
  adapter = "noop"
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
