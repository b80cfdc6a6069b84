# agent "maintainability" takes part in channel "panel", but no step runs it: referenced but never spawned.
workflow "demo" {
  version       = "1"
  initial_state = "review"
  target_state  = "done"
}

agent "security" { adapter = "copilot" }
agent "maintainability" { adapter = "copilot" }

channel "panel" {
  participants = [agent.security, agent.maintainability]
}

step "review" {
  target = agent.security
  outcome "success" { next = "talk" }
}

step "talk" {
  target = channel.panel
  input {
    post = { from = "security", to = "maintainability", body = steps.review.notes }
  }
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
