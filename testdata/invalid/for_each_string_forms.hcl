# Found by a trial: for_each = "" was told to write ["a", "b"] (it holds no items: []), and
# for_each = "${var.s}" was said as "${var.s}" rather than the expression var.s.
workflow "w" {
  version       = "1"
  initial_state = "empty"
  target_state  = "done"
}
variable "s" {
  type    = string
  default = "a b"
}
adapter "shell" "default" {}
step "empty" {
  target   = adapter.shell.default
  for_each = ""
  input { command = "echo ${each.value}" }
  outcome "all_succeeded" { next = "wrapped" }
  outcome "any_failed" { next = "done" }
}
step "wrapped" {
  target   = adapter.shell.default
  for_each = "${var.s}"
  input { command = "echo ${each.value}" }
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "done" }
}
state "done" { terminal = true }
