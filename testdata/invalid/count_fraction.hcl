workflow "c" {
  version       = "1"
  initial_state = "s"
  target_state  = "done"
}
adapter "noop" "default" {}
step "s" {
  target = adapter.noop.default
  count  = 1.5
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "done" }
}
state "done" { terminal = true }
