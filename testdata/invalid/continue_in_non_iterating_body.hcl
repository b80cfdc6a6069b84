# _continue inside the workflow body of a step that does not iterate (no count,
# for_each or parallel).
workflow "demo" {
  version       = "1"
  initial_state = "once"
  target_state  = "done"
}

step "once" {
  type = "workflow"

  workflow {
    step "work" {
      adapter = "noop"
      outcome "success" { transition_to = "return" }
      outcome "failure" { transition_to = "_continue" }
    }
  }

  outcome "success" { transition_to = "done" }
}

state "done" { terminal = true }
