# The workers' chaos workflow (test/engine/worker/chaos.test.ts): effectful shell steps,
# an iterating step, a subworkflow and a duration wait (a worker parks the run and a
# timer job wakes it). Every shell step appends "<idempotency key> <attempt>" to
# var.ledger, so an effect run twice shows up twice.
workflow {
  name          = "chaos"
  version       = "1"
  initial_state = "prepare"
  target_state  = "done"
}

variable "ledger" {
  type        = string
  description = "file every effect appends its idempotency key and attempt to"
}

variable "pace" {
  type        = string
  default     = "0.2"
  description = "seconds each effect takes"
}

adapter "shell" "default" {}

subworkflow "stage" {
  source   = "./stage"
  adapters = [adapter.shell.default]
  input = {
    ledger = var.ledger
    pace   = var.pace
  }
}

step "prepare" {
  target = adapter.shell.default
  input { command = "echo \"$CRITERIA_IDEMPOTENCY_KEY $CRITERIA_ATTEMPT\" >> '${var.ledger}' && sleep ${var.pace} && echo ready" }
  outcome "success" { next = step.fan }
  outcome "failure" { next = state.failed }
}

step "fan" {
  target   = adapter.shell.default
  for_each = ["a", "b", "c"]
  input { command = "echo \"$CRITERIA_IDEMPOTENCY_KEY $CRITERIA_ATTEMPT\" >> '${var.ledger}' && sleep ${var.pace} && echo ${each.value}" }
  outcome "all_succeeded" { next = step.stage }
  outcome "any_failed"    { next = state.failed }
}

step "stage" {
  target = subworkflow.stage
  input { tag = "s" }
  outcome "success" { next = wait.pause }
  outcome "failure" { next = state.failed }
}

wait "pause" {
  duration = "1s"
  next     = step.finish
}

step "finish" {
  target = adapter.shell.default
  input { command = "echo \"$CRITERIA_IDEMPOTENCY_KEY $CRITERIA_ATTEMPT\" >> '${var.ledger}' && echo all-done" }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.failed }
}

state "done" { terminal = true }
state "failed" {
  terminal = true
  success  = false
}

output "summary" {
  value = "${steps.prepare.stdout}/${join(",", [for s in steps.fan : trimspace(s.stdout)])}/${steps.stage.tag}/${steps.finish.stdout}"
}
