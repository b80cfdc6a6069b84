# on_failure = "stop": the allowed values are "continue", "abort" and "ignore".
workflow "demo" {
  version       = "1"
  initial_state = "loop"
  target_state  = "done"
}

step "loop" {
  adapter    = "noop"
  for_each   = ["a", "b"]
  on_failure = "stop"
  input { item = each.value }
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed"    { next = "done" }
}

state "done" { terminal = true }
