workflow "child" {
  version = "1"
  initial_state = "a"
  target_state = "done"
}
adapter "shell" "default" {}
step "a" {
  target = adapter.shell.default
  input { command = "echo hello" }
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
output "n" {
  type = number
  value = steps.a.stdout
}
