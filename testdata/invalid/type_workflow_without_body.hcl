# type = "workflow" without an inline workflow { } block.
workflow "demo" {
  version       = "1"
  initial_state = "loop"
  target_state  = "done"
}

step "loop" {
  type  = "workflow"
  count = 2
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed"    { next = "done" }
}

state "done" { terminal = true }
