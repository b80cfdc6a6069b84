workflow {
  name          = "child"
  version       = "1"
  initial_state = "review"
  target_state  = "done"
  expects {
    adapters = [adapter.copilot.reviewer]
    agents   = [agent.executor]
  }
}

step "review" {
  target = adapter.copilot.reviewer
  input { prompt = "review" }
  outcome "success" { next = step.execute }
}

step "execute" {
  target = agent.executor
  input { prompt = "fix" }
  outcome "success" { next = state.done }
}

state "done" { terminal = true }
