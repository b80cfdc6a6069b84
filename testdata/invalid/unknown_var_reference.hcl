# var.branh: the variable is "branch" (unknown_reference, did-you-mean).
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

variable "branch" {
  type    = "string"
  default = "main"
}

adapter "shell" "default" {}

step "build" {
  target = adapter.shell.default
  input { command = "git checkout ${var.branh}" }
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
