workflow "w" {
  version = "1"
  initial_state = "a"
  target_state = "done"
}
variable "x" { type = "string" }
adapter "shell" "default" {}
step "a" {
  target = adapter.shell.default
  input { command = "echo ${var.x}" }
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
