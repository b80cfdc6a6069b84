workflow "kinds" {
  version       = "0.3"
  initial_state = "work"
  target_state  = "done"
}
adapter "noop" "n" {}
step "work" {
  target     = adapter.noop.n
  max_visits = 2
  outcome "success" { next = "route" }
}
switch "route" {
  condition {
    match = true
    next  = step.done      # "done" is a state, not a step
  }
  default {
    next = state.work      # "work" is a step, not a state
  }
}
state "done" { terminal = true }
