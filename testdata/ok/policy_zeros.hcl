# The Go tool's zeros: max_total_steps = 0 is the default (100), max_visits_warn_threshold = 0 turns the warning off, max_visits = 0 is unlimited.
workflow {
  name          = "pol0"
  version       = "1"
  initial_state = "loop"
  target_state  = "done"
}

adapter "noop" "default" {}

policy {
  max_total_steps           = 0
  max_visits_warn_threshold = 0
}

step "loop" {
  target     = adapter.noop.default
  count      = 3
  max_visits = 0
  outcome "all_succeeded" { next = state.done }
  outcome "any_failed" { next = state.done }
}

state "done" {
  terminal = true
  success  = true
}
