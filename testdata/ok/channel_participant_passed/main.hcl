# Agent "b" takes part in channel "panel" and is run only inside the subworkflow it is
# passed to: it is spawned (a new-user trial found it refused as never spawned).
workflow "passed" {
  version       = "1"
  initial_state = "a"
  target_state  = "done"
}
agent "a" { adapter = "shell" }
agent "b" { adapter = "shell" }
channel "panel" {
  participants = [agent.a, agent.b]
}
subworkflow "mod" {
  source = "./mod"
  agents = [agent.b]
}
step "a" {
  target = agent.a
  input { command = "criteria channel post panel --to b --body hi" }
  outcome "success" { next = "call" }
}
step "call" {
  target = subworkflow.mod
  outcome "success" { next = "done" }
  outcome "failure" { next = "done" }
}
state "done" { terminal = true }
