# Agent "reviewer" has neither adapter nor cli (nor use).
workflow "demo" {
  version       = "1"
  initial_state = "review"
  target_state  = "done"
}

agent "reviewer" {
  model = "gpt-5.3-codex"
}

step "review" {
  target = agent.reviewer
  input { prompt = "review the diff" }
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
