# A reviewer flow used as an agent: reads input.task, says a verdict.
workflow {
  name          = "reviewer"
  version       = "1"
  initial_state = "look"
  target_state  = "done"
  identity      = "release-reviewer"
}

adapter "shell" "own" {}

step "look" {
  target = adapter.shell.own
  input {
    command = "sleep 2 && echo \"review ${input.task} $CRITERIA_IDEMPOTENCY_KEY\" >> ${input.ledger} && echo LGTM"
  }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.failed }
}

state "done" {
  terminal = true
}

state "failed" {
  terminal = true
  success  = false
}

output "verdict" {
  type  = string
  value = trimspace(steps.look.stdout)
}
