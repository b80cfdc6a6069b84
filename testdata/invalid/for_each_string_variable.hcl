# for_each over a variable declared string (found by a new-user trial: validate passed, the run failed):
# its type is known before the run. A template and a bool local too; a list variable and try() of lists are fine.
workflow {
  name          = "e15"
  version       = "1"
  initial_state = "a"
  target_state  = "done"
}
variable "files" {
  type    = string
  default = "a.txt b.txt"
}
variable "list" {
  type    = list(string)
  default = ["a"]
}
variable "flag" {
  type    = bool
  default = true
}
adapter "shell" "default" {}
step "a" {
  target   = adapter.shell.default
  for_each = var.files
  input {
    command = "echo ${each.value}"
  }
  outcome "all_succeeded" { next = step.b }
  outcome "any_failed"    { next = step.b }
}
step "b" {
  target   = adapter.shell.default
  parallel = "${var.list[0]}-x"
  input { command = "echo ${each.value}" }
  outcome "all_succeeded" { next = step.c }
  outcome "any_failed"    { next = step.c }
}
step "c" {
  target   = adapter.shell.default
  for_each = var.flag
  input { command = "echo ${each.value}" }
  outcome "all_succeeded" { next = step.d }
  outcome "any_failed"    { next = step.d }
}
step "d" {
  target   = adapter.shell.default
  for_each = try(var.list, [])
  input { command = "echo ${each.value}" }
  outcome "all_succeeded" { next = step.e }
  outcome "any_failed"    { next = step.e }
}
step "e" {
  target   = adapter.shell.default
  for_each = split(" ", var.files)
  input { command = "echo ${each.value}" }
  outcome "all_succeeded" { next = state.done }
  outcome "any_failed"    { next = state.done }
}
state "done" {
  terminal = true
}
