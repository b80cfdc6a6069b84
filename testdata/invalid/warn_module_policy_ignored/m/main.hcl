workflow {
  name          = "check"
  version       = "1"
  initial_state = "lint"
  target_state  = "done"
}

policy {
  max_total_steps = 2
}

adapter "noop" "default" {}

step "lint" {
  target = adapter.noop.default
  outcome "success" { next = state.done }
}

state "done" {
  terminal = true
}
