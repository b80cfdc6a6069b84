# Found by a new-user trial: a list-typed variable in a string template passed validate and failed the run ("cannot include a list value in a string template"); a field of an object, a join and a lone ${...} are fine.
workflow "t" {
  version       = "1"
  initial_state = "s"
  target_state  = "done"
}
variable "names" {
  type    = list(string)
  default = ["a"]
}
variable "obj" {
  type    = object({ k = string })
  default = { k = "v" }
}
adapter "shell" "default" {}
step "s" {
  target = adapter.shell.default
  input {
    command = "echo ${var.names} ${var.obj} ${var.obj.k} ${join(" ", var.names)}"
    cwd     = "${var.names}"
  }
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
