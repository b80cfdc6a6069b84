# An agent's adapter type typo is warned at the value written.
workflow {
  name = "t"
  version = "1"
  initial_state = "build"
  target_state = "done"
}
agent "bot" {
  adapter = "shel"
}
step "build" {
  target = agent.bot
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
