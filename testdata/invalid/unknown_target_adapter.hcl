# target = adapter.shell.missing: only adapter "shell" "default" is declared.
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

adapter "shell" "default" {}

step "build" {
  target = adapter.shell.missing
  input { command = "make" }
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
