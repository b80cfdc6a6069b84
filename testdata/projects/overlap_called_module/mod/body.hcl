workflow "body" {
  version = "1"
  initial_state = "b1"
  target_state = "done"
}
step "b1" {
  target = adapter.shell.default
  input { command = "true" }
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
