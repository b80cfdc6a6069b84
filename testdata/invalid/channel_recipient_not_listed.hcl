# The recipient "c" is a declared agent but not one of the channel's participants: the hint
# says to add it (found by a new-user trial: it offered the sender "a" as a did-you-mean).
workflow "talk" {
  version       = "1"
  initial_state = "work"
  target_state  = "done"
}

agent "a" { adapter = "copilot" }
agent "b" { adapter = "copilot" }
agent "c" { adapter = "copilot" }

channel "pair" {
  participants = [agent.a, agent.b]
}

step "work" {
  target = agent.a
  input { prompt = "work" }
  outcome "success" { next = "tell" }
}

step "tell" {
  target = channel.pair
  input {
    post = { from = "a", to = "c", body = "hi" }
  }
  outcome "success" { next = "hear" }
}

step "hear" {
  target = agent.b
  input { prompt = "hear" }
  outcome "success" { next = "review" }
}

step "review" {
  target = agent.c
  input { prompt = "review" }
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
