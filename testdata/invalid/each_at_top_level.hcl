# each.value in a step that does not iterate (each_outside_iteration).
workflow "demo" {
  version       = "1"
  initial_state = "greet"
  target_state  = "done"
}

adapter "shell" "default" {}

step "greet" {
  target = adapter.shell.default
  input { command = "echo hello ${each.value}" }
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
