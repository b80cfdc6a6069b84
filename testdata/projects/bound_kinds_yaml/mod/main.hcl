workflow "mod" {
  version       = "1"
  initial_state = "s"
  target_state  = "done"
}
variable "name" { type = string }
variable "n" { type = number }
variable "flags" { type = list(bool) }
adapter "noop" "default" {}
step "s" {
  target = adapter.noop.default
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
