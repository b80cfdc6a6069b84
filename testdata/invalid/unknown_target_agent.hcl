# target = agent.nope: only agent "reviewer" is declared.
workflow "demo" {
  version       = "1"
  initial_state = "review"
  target_state  = "done"
}

agent "reviewer" {
  adapter = "copilot"
}

step "review" {
  target = agent.nope
  input { prompt = "review the diff" }
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
