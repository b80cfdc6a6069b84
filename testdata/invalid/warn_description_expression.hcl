# A description is shown as written: a ${...} in it is not evaluated, said once as a warning (found by a new-user trial: it was kept silently). $${ is the way to write it literally.
workflow "w" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

variable "tok" {
  type        = string
  default     = "x"
  description = "uses ${var.tok}"
}

adapter "shell" "default" {}

step "build" {
  target      = adapter.shell.default
  description = "builds $${BRANCH}"
  input { command = "echo ${var.tok}" }
  outcome "success" { next = "done" }
}

state "done" { terminal = true }

output "o" {
  value       = var.tok
  description = "the ${var.tok} value"
}
