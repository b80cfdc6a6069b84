# A condition may read a secret; when it fails, its message (which quoted part of the secret) is withheld.
workflow {
  name          = "err2"
  version       = "1"
  initial_state = "route"
  target_state  = "done"
}

variable "tok" {
  type   = string
  secret = true
}

adapter "shell" "default" {}

switch "route" {
  match {
    condition = jsondecode(var.tok) == 1
    next      = step.s
  }
  default {
    next = step.s
  }
}

step "s" {
  target = adapter.shell.default
  input { command = "echo hi" }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.done }
}

state "done" {
  terminal = true
  success  = true
}
