# Step "build" selects environment "shell.ci", but only "shell.default" is declared.
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

environment "shell" "default" {
  variables = { CI = "1" }
}

adapter "shell" "default" {}

step "build" {
  target      = adapter.shell.default
  environment = "shell.ci"
  input { command = "make" }
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
