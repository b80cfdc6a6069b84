# The seed's repro (shared/seeds/001), fixed: agents declared by the enclosing
# workflow are visible inside a type = "workflow" body. Older syntax, on purpose.
workflow "agent_in_body" {
  version       = "1"
  initial_state = "loop"
  target_state  = "done"

  agent "executor" {
    adapter = "copilot"
    config { model = "gpt-5.3-codex" }
  }

  step "loop" {
    type  = "workflow"
    count = 3

    workflow {
      step "execute" {
        agent = "executor"
        input { prompt = "do work" }
        outcome "success" { transition_to = "_continue" }
        outcome "failure" { transition_to = "_continue" }
      }
    }

    outcome "all_succeeded" { transition_to = "done" }
    outcome "any_failed"    { transition_to = "done" }
  }

  state "done" { terminal = true }
}
