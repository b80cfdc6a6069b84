workflow "m" {
  version       = "1"
  initial_state = "a"
  target_state  = "done"
}
variable "env" {
  type = string
}
adapter "shell" "default" {}
step "a" {
  target = adapter.shell.default
  input { command = "echo ${var.env}" }
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
