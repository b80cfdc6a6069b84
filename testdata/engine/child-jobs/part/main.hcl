# One child of the split workflow: waits for signal "go", then appends "<item> <worker>" to the ledger.
workflow {
  name          = "part"
  version       = "1"
  initial_state = "gate"
  target_state  = "done"
  expects {
    adapters = [adapter.shell.default]
  }
}

variable "ledger" { type = string }
variable "item" { type = string }

wait "gate" {
  signal = "go"
  next   = step.work
}

step "work" {
  target = adapter.shell.default
  input { command = "echo \"${var.item} $WORKER_NAME\" | tee -a '${var.ledger}'" }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.failed }
}

state "done" { terminal = true }
state "failed" {
  terminal = true
  success  = false
}

output "line" {
  value = trimspace(steps.work.stdout)
}
