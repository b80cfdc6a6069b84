workflow "w" {
  version = "1"
  initial_state = "call"
  target_state = "done"
}
adapter "shell" "default" {}
agent "bot" {
  adapter = "shell.default"
}
step "call" {
  target = agent.bot
  input { command = "true" }
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
