# Two steps named "build": the second declaration is a duplicate_name.
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

adapter "shell" "default" {}

step "build" {
  target = adapter.shell.default
  input { command = "make" }
  outcome "success" { next = "done" }
}

step "build" {
  target = adapter.shell.default
  input { command = "make test" }
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
