# One package per built artifact: a body, sees the caller's adapters and variables.
workflow {
  name          = "package"
  initial_state = "pack"
  target_state  = "packed"
}

step "pack" {
  target = adapter.shell.default
  input {
    command = "sleep 1 && echo \"package ${each.value.artifact} $CRITERIA_IDEMPOTENCY_KEY\" >> ${var.ledger} && echo ${each.value.artifact}.pkg"
  }
  outcome "success" {
    next   = state.packed
    output = { pkg = trimspace(step.output.stdout) }
  }
  outcome "failure" { next = state.nope }
}

state "packed" {
  terminal = true
}

state "nope" {
  terminal = true
  success  = false
}
