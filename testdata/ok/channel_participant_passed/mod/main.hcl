workflow "mod" {
  version       = "1"
  initial_state = "b"
  target_state  = "done"
  expects {
    agents = [agent.b]
  }
}
step "b" {
  target = agent.b
  input { command = "criteria channel recv panel --timeout 5s" }
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
