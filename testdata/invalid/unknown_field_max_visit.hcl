# A step sets max_visit instead of max_visits (unknown_field, did-you-mean).
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

adapter "shell" "default" {}

step "build" {
  target    = adapter.shell.default
  max_visit = 3
  input { command = "make" }
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
