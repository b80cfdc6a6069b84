workflow {
  name          = "b"
  version       = "1"
  initial_state = "loop"
  target_state  = "done"
}

adapter "noop" "default" {}

step "loop" {
  count = 2
  workflow {
    step "work" {
      target = adapter.noop.default
      outcome "success" { next = "_continue" }
    }
  }
  outcome "all_succeeded" { next = state.done }
  outcome "any_failed"    { next = state.done }
}

state "done" { terminal = true }
