workflow "mod" {
  version = "1"
  initial_state = "s"
  target_state = "done"
  expects {
    adapters = [adapter.shell.default]
    agents = [agent.rev]
  }
}
step "s" {
  target = adapter.shell.default
  input { command = "true" }
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
