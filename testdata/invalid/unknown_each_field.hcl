# each.valeu inside a for_each step: each has no field "valeu" (did-you-mean "value").
workflow "demo" {
  version       = "1"
  initial_state = "greet"
  target_state  = "done"
}

adapter "shell" "default" {}

step "greet" {
  target   = adapter.shell.default
  for_each = ["ann", "bob"]
  input { command = "echo hello ${each.valeu}" }
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed"    { next = "done" }
}

state "done" { terminal = true }
