# Found by a trial of check-template-kinds: a list in a string template was missed in locals, outputs, adapter config and %{if}.
workflow "t" {
  version       = "1"
  initial_state = "s"
  target_state  = "done"
}
variable "names" {
  type    = list(string)
  default = ["a"]
}
locals {
  msg = "names: ${var.names}"
}
adapter "shell" "default" {
  config {
    env = { N = "n=${var.names}" }
  }
}
step "s" {
  target = adapter.shell.default
  input { command = "echo %{if true}${var.names}%{endif} ${local.msg}" }
  outcome "success" { next = "done" }
}
output "out" {
  value = "v=${var.names}"
}
state "done" { terminal = true }
