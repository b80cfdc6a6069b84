# A while loop whose condition never turns false stops at max_visits.
workflow {
  name          = "while-bounded"
  version       = "1"
  initial_state = "spin"
  target_state  = "done"
}

variable "limit" {
  type    = number
  default = 2
}

adapter "noop" "default" {}

step "spin" {
  target     = adapter.noop.default
  while      = true
  max_visits = var.limit
  outcome "all_succeeded" { next = state.done }
  outcome "any_failed"    { next = state.done }
}

state "done" {
  terminal = true
  success  = true
}
