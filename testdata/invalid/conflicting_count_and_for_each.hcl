# A step sets both count and for_each: a step iterates one way.
workflow "demo" {
  version       = "1"
  initial_state = "loop"
  target_state  = "done"
}

step "loop" {
  adapter  = "noop"
  count    = 2
  for_each = ["a", "b"]
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed"    { next = "done" }
}

state "done" { terminal = true }
