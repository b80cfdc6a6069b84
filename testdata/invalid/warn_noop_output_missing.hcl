# A noop step echoes its input as its output, so the keys a later read may take are known
# when its input is written key by key: reading another is warned of, not refused (a noop
# stands in for a step still to be written; found by a new-user trial: steps.verify.result
# validated, and the run failed at the read). One whose input is a whole expression is open.
workflow {
  name          = "noop_output"
  version       = "1"
  initial_state = "verify"
  target_state  = "done"
}

adapter "noop" "default" {}

variable "extra" {
  type    = map(string)
  default = {}
}

step "verify" {
  target = adapter.noop.default
  outcome "success" { next = step.tag }
}

step "tag" {
  target = adapter.noop.default
  input {
    label = "v1"
  }
  outcome "success" {
    next   = step.open
    output = { label = step.output.label, kept = true }
  }
}

step "open" {
  target = adapter.noop.default
  input  = var.extra
  outcome "success" { next = state.done }
}

output "verified" { value = steps.verify.result }
output "tagged" { value = steps.tag.lable }
output "kept" { value = steps.tag.kept }
output "open" { value = steps.open.anything }

state "done" {
  terminal = true
}
