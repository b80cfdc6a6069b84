# Found by a new-user trial: an agent in a subworkflow's adapters list (and an adapter in its agents) was an unknown adapter "agent.rev", without a word of the other list.
workflow "m" {
  version = "1"
  initial_state = "s"
  target_state = "done"
}
adapter "shell" "default" {}
agent "rev" { adapter = "copilot" }
subworkflow "c" {
  source = "./mod"
  adapters = [agent.rev, adapter.shell.default]
  agents = [adapter.shell.default]
}
step "s" {
  target = subworkflow.c
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
