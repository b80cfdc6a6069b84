# Steps "execute" and "review" loop with no max_visits, and only a policy of 1,000
# steps (above max_visits_warn_threshold, 200) stops them (an unbounded_loop warning);
# step "review" also has timeout = "ten minutes", which is not a duration (the error
# that makes this case invalid).
workflow "demo" {
  version       = "1"
  initial_state = "execute"
  target_state  = "done"
}
policy {
  max_total_steps = 1000
}

agent "executor" { adapter = "copilot" }
agent "reviewer" { adapter = "copilot" }

step "execute" {
  target = agent.executor
  input { prompt = "do the work" }
  outcome "success" { next = "review" }
}

step "review" {
  target  = agent.reviewer
  timeout = "ten minutes"
  input { prompt = "review the work" }
  outcome "approved" { next = "done" }
  outcome "changes"  { next = "execute" }
}

state "done" { terminal = true }
