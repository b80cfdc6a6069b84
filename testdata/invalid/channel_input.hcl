# A channel step must post or receive: this one has neither (topic is not an operation), and its post has a field posts do not take.
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
    topic = "agree on one list"
  }
  outcome "success" { next = "post" }
}

step "post" {
  target = channel.panel
  input {
    post = { from = "security", to = "maintainability", body = "hi", subject = "x" }
  }
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
