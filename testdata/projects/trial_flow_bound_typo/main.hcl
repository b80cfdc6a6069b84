# Found by a new-user trial of composition (m38_flow_bound_typo).
# A release pipeline: build each service in a subworkflow module (parallel),
# then package each one in a workflow_file body (for_each), then ask a reviewer flow.
workflow {
  name          = "release"
  version       = "1"
  initial_state = "prepare"
  target_state  = "done"
  use           = ["./flows/reviewer.hcl"]
}

variable "ledger" {
  type    = string
  default = "ledger.txt"
}

variable "nap" {
  type    = number
  default = 2
}

variable "services" {
  type    = list(string)
  default = ["api", "worker", "web"]
}

adapter "shell" "default" {}
adapter "noop" "default" {}

agent "checker" {
  use      = "./flows/reviewer2.hcl"
  adapters = [adapter.shell.default]
}

subworkflow "build" {
  source   = "./modules/build"
  adapters = [adapter.shell.default, adapter.noop.default]
  input = {
    ledger = var.ledger
    nap    = var.nap
  }
}

step "prepare" {
  target = adapter.shell.default
  input {
    command = "echo \"prepare $CRITERIA_IDEMPOTENCY_KEY\" >> ${var.ledger}"
  }
  outcome "success" { next = step.build_all }
  outcome "failure" { next = state.failed }
}

step "build_all" {
  target       = subworkflow.build
  parallel     = var.services
  parallel_max = 2
  input {
    service = each.value
  }
  outcome "all_succeeded" { next = step.package }
  outcome "any_failed"    { next = state.failed }
}

step "package" {
  for_each      = steps.build_all
  workflow_file = "./bodies/package.hcl"
  outcome "all_succeeded" { next = step.review }
  outcome "any_failed"    { next = state.failed }
}

step "review" {
  target = agent.checker
  input {
    task      = join(",", [for b in steps.build_all : b.artifact])
    ledger    = var.ledger
  }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.failed }
}

state "done" {
  terminal = true
  success  = true
}

state "failed" {
  terminal = true
  success  = false
}

output "artifacts" {
  type  = list(string)
  value = [for b in steps.build_all : b.artifact]
}

output "packages" {
  type  = list(string)
  value = [for p in steps.package : p.pkg]
}

output "verdict" {
  type  = string
  value = steps.review.verdict
}
