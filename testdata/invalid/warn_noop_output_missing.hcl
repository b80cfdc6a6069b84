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
  secret_input { TOKEN = var.token }
  outcome "success" {
    next   = step.open
    output = { label = step.output.label, kept = true }
  }
}

step "open" {
  target = adapter.noop.default
  input  = var.extra
  outcome "success" { next = step.projected }
}

# A projection written as one expression may give any key; a secret_input is not echoed.
step "projected" {
  target = adapter.noop.default
  input { raw = "{\"k\": 1}" }
  outcome "success" {
    next   = state.done
    output = merge(step.output, jsondecode(step.output.raw))
  }
}

variable "token" {
  type   = string
  secret = true
}

output "verified" { value = steps.verify.result }
output "tagged" { value = steps.tag.lable }
output "kept" { value = steps.tag.kept }
output "open" { value = steps.open.anything }
output "k" { value = steps.projected.k }
output "token" { value = steps.tag.TOKEN }
# Guarded where a try() or can() of the same read catches it (found by a trial of this check).
output "tried" { value = try(steps.tag.lable, "") }
output "tested" { value = can(steps.tag.other) ? steps.tag.other : steps.tag.label }

state "done" {
  terminal = true
}
