workflow "n" {
  version = "1"
  initial_state = "loop"
  target_state = "done"
}
step "loop" {
  count = 2
  workflow {
    approval "ok" {
      approvers = ["a"]
      outcome "approved" { next = "return" }
      outcome "rejected" { next = "nope" }
    }
    state "nope" {
      terminal = true
      success = false
    }
  }
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "done" }
}
state "done" { terminal = true }
