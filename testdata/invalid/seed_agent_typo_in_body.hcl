# Seed 001: agent "executor" is declared, but the body step of a type = "workflow"
# step misspells it as agent = "executr" (unknown_target at the value, did-you-mean).
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
        agent = "executr"
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
