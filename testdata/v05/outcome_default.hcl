# outcome "default" catches an outcome the step does not declare; a single outcome is the implicit default.
workflow {
  name          = "outcome-default"
  version       = "1"
  initial_state = "probe"
  target_state  = "done"
}

adapter "shell" "default" {}
adapter "noop" "default" {}

step "probe" {
  target = adapter.shell.default
  input { command = "exit 3" }
  outcome "success" { next = state.done }
  outcome "default" {
    next   = step.settle
    output = { note = "probe exited ${step.output.exit_code}" }
  }
}

step "settle" {
  target = adapter.noop.default
  outcome "done" { next = state.done }
}

output "note" {
  value = steps.probe.note
}

state "done" {
  terminal = true
  success  = true
}
