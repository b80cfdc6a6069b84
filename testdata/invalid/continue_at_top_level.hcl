# An outcome of a top-level step goes to _continue, which only means something
# inside the body of an iterating step.
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
  outcome "failure" { next = "_continue" }
}

state "done" { terminal = true }
