workflow "reviewer" {
  version = "1"
  initial_state = "review"
  target_state = "done"
}
adapter "shell" "default" {}
step "review" {
  target = adapter.shell.default
  input = { command = "echo ok" }
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
