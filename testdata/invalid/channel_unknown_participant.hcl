# channel "review" lists agent.reveiwer, which is not declared (agent "reviewer" is).
workflow "demo" {
  version       = "1"
  initial_state = "talk"
  target_state  = "done"
}

agent "executor" { adapter = "copilot" }
agent "reviewer" { adapter = "copilot" }

channel "review" {
  participants = [agent.executor, agent.reveiwer]
}

step "talk" {
  target = channel.review
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
