workflow {
  name          = "d"
  version       = "1"
  initial_state = "a"
  target_state  = "done"
}
adapter "noop" "default" {}
step "a" {
  target = adapter.noop.default
  outcome "success" { next = state.done }
}
state "done" { terminal = true }
