# Participants computed by an expression are not evaluated before the run: an error that
# says to write the list out (found by a new-user trial: the hint wrapped the expression in
# a list of one string).
workflow "c" {
  version       = "1"
  initial_state = "a_review"
  target_state  = "done"
}
agent "a" {
  adapter = "local"
  config { script = "./a.json" }
}
channel "computed" {
  participants = [for x in ["a"] : agent.a]
}
step "a_review" {
  target = agent.a
  outcome "done" { next = "done" }
}
state "done" { terminal = true }
