# The body's steps only route to each other: an item never reaches _continue, return or a state.
workflow "demo" {
  version       = "1"
  initial_state = "loop"
  target_state  = "done"
}

adapter "shell" "default" {}

step "loop" {
  count = 2
  workflow {
    step "a" {
      target = adapter.shell.default
      input { command = "true" }
      outcome "success" { next = "b" }
      outcome "failure" { next = "b" }
    }
    step "b" {
      target = adapter.shell.default
      input { command = "true" }
      outcome "success" { next = "a" }
      outcome "failure" { next = "a" }
    }
  }
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed"    { next = "done" }
}

state "done" { terminal = true }
