workflow "w" {
  version       = "1"
  initial_state = "loop"
  target_state  = "done"
}
adapter "noop" "default" {}
step "loop" {
  count = 2
  workflow {
    workflow {
      initial_state = "b"
    }
    step "a" {
      target = adapter.noop.default
      outcome "success" { next = "_continue" }
    }
    step "b" {
      target = adapter.noop.default
      outcome "success" { next = "a" }
    }
  }
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed"    { next = "done" }
}
state "done" { terminal = true }
