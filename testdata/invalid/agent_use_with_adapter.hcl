# An agent with both "use" (a flow) and "adapter": one error, with a hint saying which to keep
# (found by a new-user trial: the error had no hint).
workflow "both" {
  version       = "1"
  initial_state = "ask"
  target_state  = "done"
}

agent "both" {
  use     = "./flow.hcl"
  adapter = "claude"
}

step "ask" {
  target = agent.both
  input { prompt = "review" }
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
