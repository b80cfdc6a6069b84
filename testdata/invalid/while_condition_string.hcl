# A while condition written as a template with text around it is a string, never false.
workflow {
  name          = "demo"
  version       = "1"
  initial_state = "poll"
  target_state  = "done"
}

adapter "noop" "default" {}

step "poll" {
  target     = adapter.noop.default
  while      = "${while.index} < 3"
  max_visits = 5
  outcome "all_succeeded" { next = state.done }
  outcome "any_failed"    { next = state.done }
}

state "done" {
  terminal = true
  success  = true
}
