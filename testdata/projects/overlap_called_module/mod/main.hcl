workflow "mod" {
  version = "1"
  initial_state = "s1"
  target_state = "done"
  expects {
    adapters = [adapter.shell.default]
  }
}
step "s1" {
  workflow_file = "./body.hcl"
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
