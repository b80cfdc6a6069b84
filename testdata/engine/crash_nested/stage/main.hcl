# A stage: step a runs on the caller's shell session (expects), step b on the stage's own.
workflow {
  name          = "stage"
  version       = "1"
  initial_state = "a"
  target_state  = "done"
  expects {
    adapters = [adapter.shell.default]
  }
}

variable "log" { type = string }
variable "tag" { type = string }

adapter "shell" "own" {}

step "a" {
  target = adapter.shell.default
  input { command = "echo stage-${var.tag}-a >> '${var.log}'" }
  outcome "success" { next = step.b }
  outcome "failure" { next = state.failed }
}

step "b" {
  target = adapter.shell.own
  input { command = "echo stage-${var.tag}-b >> '${var.log}'" }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.failed }
}

state "done" { terminal = true }
state "failed" {
  terminal = true
  success  = false
}

output "tag" {
  value = var.tag
}
