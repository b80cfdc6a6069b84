# At the top level, return ends the run successfully (the Go tool v0.5: "Return semantics").
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

adapter "shell" "default" {}

step "build" {
  target = adapter.shell.default
  input { command = "make" }
  outcome "success" { next = "return" }
  outcome "failure" { next = "done" }
}

state "done" { terminal = true }
