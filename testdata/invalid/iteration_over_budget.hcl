# A literal count past the default max_total_steps (100): the run would stop at the step
# before its first item (found by a trial of the Go tool's docs: it validated). 100 is
# allowed, as is any count under a policy that raises the budget (see the module below).
workflow "budget" {
  version       = "1"
  initial_state = "many"
  target_state  = "done"
}
adapter "noop" "default" {}
step "many" {
  target = adapter.noop.default
  count  = 150
  outcome "all_succeeded" { next = "enough" }
  outcome "any_failed" { next = "done" }
}
step "enough" {
  target = adapter.noop.default
  count  = 100
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "done" }
}
state "done" { terminal = true }
