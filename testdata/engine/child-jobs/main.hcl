# Child runs in jobs of their own (test/engine/worker/child-jobs.test.ts): a parallel step
# calls a subworkflow that inherits only the stateless shell session, so each child run gets
# a job and a lease of its own and may run on another worker. Each child waits for signal
# "go" (one signal ends one wait) and records which worker ran it ($WORKER_NAME).
workflow {
  name          = "split"
  version       = "1"
  initial_state = "first"
  target_state  = "done"
}

variable "ledger" {
  type        = string
  description = "file each child's effect appends a line to"
}

adapter "shell" "default" {}

subworkflow "part" {
  source   = "./part"
  adapters = [adapter.shell.default]
  input = {
    ledger = var.ledger
  }
}

step "first" {
  target = adapter.shell.default
  input { command = "echo $WORKER_NAME" }
  outcome "success" { next = step.fan }
  outcome "failure" { next = state.failed }
}

step "fan" {
  target   = subworkflow.part
  parallel = ["a", "b"]
  input { item = each.value }
  outcome "all_succeeded" { next = step.last }
  outcome "any_failed"    { next = state.failed }
}

step "last" {
  target = adapter.shell.default
  input { command = "echo $WORKER_NAME" }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.failed }
}

state "done" { terminal = true }
state "failed" {
  terminal = true
  success  = false
}

output "summary" {
  value = "${trimspace(steps.first.stdout)}|${join(",", [for o in steps.fan : o.line])}|${trimspace(steps.last.stdout)}"
}
