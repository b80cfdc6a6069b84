# steps.build.exit_code == "0": the Go tool's outputs were text and its docs compare so;
# criteria's exit_code is a number, so the condition never holds and the switch silently took
# its default (a trial of the Go tool's language): a warning at the comparison.
workflow {
  name          = "exitcode"
  version       = "1"
  initial_state = "build"
  target_state  = "deployed"
}

adapter "shell" "default" {
  config {}
}

step "build" {
  target = adapter.shell.default
  input { command = "true" }
  outcome "success" { next = switch.check }
  outcome "failure" { next = state.skipped }
}

switch "check" {
  match {
    condition = steps.build.exit_code == "0"
    next      = state.deployed
  }
  default {
    next = state.skipped
  }
}

state "deployed" {
  terminal = true
  success  = true
}

state "skipped" {
  terminal = true
  success  = false
}
