# A count step declares only any_failed: all_succeeded is missing.
workflow "demo" {
  version       = "1"
  initial_state = "retry"
  target_state  = "done"
}

step "retry" {
  adapter = "noop"
  count   = 3
  outcome "any_failed" { next = "done" }
}

state "done" { terminal = true }
