# An agent sets modle (a typo of model): agents fail closed on unknown fields.
workflow "demo" {
  version       = "1"
  initial_state = "review"
  target_state  = "done"
}

agent "reviewer" {
  adapter = "copilot"
  modle   = "gpt-5.3-codex"
}

step "review" {
  target = agent.reviewer
  input { prompt = "review the diff" }
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
