# A lifecycle "close" step ends a session: it has no input to send.
workflow "demo" {
  version       = "0.1"
  initial_state = "open"
  target_state  = "done"

  agent "executor" {
    adapter = "copilot"
  }

  step "open" {
    agent     = "executor"
    lifecycle = "open"
    outcome "success" { transition_to = "close" }
  }

  step "close" {
    agent     = "executor"
    lifecycle = "close"
    input {
      prompt = "bye"
    }
    outcome "success" { transition_to = "done" }
  }

  state "done" {
    terminal = true
  }
}
