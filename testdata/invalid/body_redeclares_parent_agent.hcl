# The workflow body of step "loop" declares agent "executor" again; the body already
# sees the enclosing workflow's agent of that name.
workflow "demo" {
  version       = "1"
  initial_state = "loop"
  target_state  = "done"

  agent "executor" {
    adapter = "copilot"
  }

  step "loop" {
    type  = "workflow"
    count = 2

    workflow {
      agent "executor" {
        adapter = "claude"
      }

      step "execute" {
        agent = "executor"
        outcome "success" { transition_to = "_continue" }
        outcome "failure" { transition_to = "_continue" }
      }
    }

    outcome "all_succeeded" { transition_to = "done" }
    outcome "any_failed"    { transition_to = "done" }
  }

  state "done" { terminal = true }
}
