workflow {
  name          = "lint"
  version       = "1"
  initial_state = "check"
  target_state  = "done"
}

adapter "noop" "default" {}

step "check" {
  target = adapter.noop.default
  outcome "success" { next = state.done }
}

state "done" {
  terminal = true
}
