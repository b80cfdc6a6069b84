# A recv without a timeout could wait for ever.
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
  outcome "success" { next = "second" }
}

step "second" {
  target = agent.maintainability
  outcome "success" { next = "talk" }
}

step "talk" {
  target = channel.panel
  input {
    recv = { as = "security", from = "maintainability" }
  }
  outcome "received" { next = "done" }
}

state "done" { terminal = true }
