# Found by a new-user trial: an agent in a subworkflow's adapters list (and an adapter in its agents) was an unknown adapter "agent.rev", without a word of the other list; swapped, each is said once, in its wrong list, not again as not passed.
workflow "m" {
  version = "1"
  initial_state = "s"
  target_state = "done"
}
adapter "shell" "default" {}
agent "rev" { adapter = "copilot" }
subworkflow "c" {
  source = "./mod"
  adapters = [agent.rev]
  agents = [adapter.shell.default]
}
step "s" {
  target = subworkflow.c
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
