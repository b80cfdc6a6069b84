step "compile" {
  target = adapter.shell.default
  input {
    command = "sleep ${var.nap} && echo \"build ${var.service} $CRITERIA_IDEMPOTENCY_KEY\" >> ${var.ledger} && echo ${var.service}.tar"
  }
  outcome "success" { next = step.verify }
  outcome "failure" { next = state.broken }
}

step "verify" {
  target = adapter.noop.default
  outcome "success" { next = state.built }
}

state "built" {
  terminal = true
  success  = true
}

state "broken" {
  terminal = true
  success  = false
}
