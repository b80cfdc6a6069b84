# A stage of the chaos workflow: two effects, one on the caller's shell session.
workflow {
  name          = "stage"
  version       = "1"
  initial_state = "a"
  target_state  = "done"
  expects {
    adapters = [adapter.shell.default]
  }
}

variable "ledger" { type = string }
variable "tag" { type = string }
variable "pace" { type = string }

adapter "shell" "own" {}

step "a" {
  target = adapter.shell.default
  input { command = "echo \"$CRITERIA_IDEMPOTENCY_KEY $CRITERIA_ATTEMPT\" >> '${var.ledger}' && sleep ${var.pace}" }
  outcome "success" { next = step.b }
  outcome "failure" { next = state.failed }
}

step "b" {
  target = adapter.shell.own
  input { command = "echo \"$CRITERIA_IDEMPOTENCY_KEY $CRITERIA_ATTEMPT\" >> '${var.ledger}'" }
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
