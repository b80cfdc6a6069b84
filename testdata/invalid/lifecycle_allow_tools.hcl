# allow_tools grants tools to an agent turn; a lifecycle step runs none.
workflow "demo" {
  version       = "0.1"
  initial_state = "open"
  target_state  = "done"

  agent "executor" {
    adapter = "copilot"
  }

  step "open" {
    agent       = "executor"
    lifecycle   = "open"
    allow_tools = ["shell"]
    outcome "success" { transition_to = "close" }
  }

  step "close" {
    agent     = "executor"
    lifecycle = "close"
    outcome "success" { transition_to = "done" }
  }

  state "done" {
    terminal = true
  }
}
