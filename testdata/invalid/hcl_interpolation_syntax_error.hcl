# An interpolation with a dangling operator: "${var.count +}" is an HCL syntax error.
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

variable "count" {
  type    = "number"
  default = 2
}

adapter "shell" "default" {}

step "build" {
  target = adapter.shell.default
  input { command = "make -j${var.count +}" }
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
