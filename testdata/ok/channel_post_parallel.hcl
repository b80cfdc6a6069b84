# A channel post that iterates ends its items in "success", which its aggregate outcomes
# take, as an iterating shell step's do (found by a new-user trial: it was refused for not
# declaring outcome "success").
workflow "posts" {
  version       = "1"
  initial_state = "work"
  target_state  = "done"
}

agent "executor" { adapter = "copilot" }
agent "reviewer" { adapter = "copilot" }

channel "review" {
  participants = [agent.executor, agent.reviewer]
}

step "work" {
  target = agent.executor
  input { prompt = "write the notes" }
  outcome "success" { next = "posts" }
}

step "posts" {
  target   = channel.review
  parallel = 6
  input {
    post = { from = "executor", to = "reviewer", body = "note ${each.value}" }
  }
  outcome "all_succeeded" { next = "read" }
  outcome "any_failed" { next = "failed" }
}

step "read" {
  target = agent.reviewer
  input { prompt = "read the notes" }
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
state "failed" {
  terminal = true
  success  = false
}
