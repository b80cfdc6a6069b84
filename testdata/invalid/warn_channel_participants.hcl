# A channel nobody can use (no participants) and an agent named twice: warnings (found by
# a new-user trial: both passed silently).
workflow "c" {
  version       = "1"
  initial_state = "a_review"
  target_state  = "done"
}
agent "a" {
  adapter = "local"
  config { script = "./a.json" }
}
channel "empty" {
  participants = []
}
channel "twice" {
  participants = [agent.a, agent.a]
}
step "a_review" {
  target = agent.a
  outcome "done" { next = "done" }
}
state "done" { terminal = true }
