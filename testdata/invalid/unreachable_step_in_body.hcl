# In the body of step "loop", step "cleanup" is never reached (the body starts at
# "execute", which only ever continues).
workflow "demo" {
  version       = "1"
  initial_state = "loop"
  target_state  = "done"
}

step "loop" {
  for_each = ["a", "b"]

  workflow {
    step "execute" {
      adapter = "noop"
      input { item = each.value }
      outcome "success" { next = "_continue" }
      outcome "failure" { next = "_continue" }
    }

    step "cleanup" {
      adapter = "noop"
      outcome "success" { next = "_continue" }
    }
  }

  outcome "all_succeeded" { next = "done" }
  outcome "any_failed"    { next = "done" }
}

state "done" { terminal = true }
