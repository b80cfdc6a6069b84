# parallel_max is set on a count step; it only applies to parallel steps.
workflow "demo" {
  version       = "1"
  initial_state = "fan_out"
  target_state  = "done"
}

step "fan_out" {
  adapter      = "noop"
  count        = 4
  parallel_max = 2
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed"    { next = "done" }
}

state "done" { terminal = true }
