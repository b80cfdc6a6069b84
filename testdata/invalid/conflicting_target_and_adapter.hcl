# A step sets both target and the older adapter = "..." form.
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

adapter "shell" "default" {}

step "build" {
  target  = adapter.shell.default
  adapter = "shell"
  input { command = "make" }
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
