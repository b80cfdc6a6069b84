# A step in a sandbox environment: criteria provides no sandbox, so apply refuses rather than run it unisolated.
workflow {
  name          = "sandboxed"
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

environment "sandbox" "strict" {
  variables = { CI = "true" }
}

adapter "shell" "default" {}

step "build" {
  target = adapter.shell.default
  input { command = "touch /tmp/should-not-exist-$$" }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.done }
}

state "done" {
  terminal = true
  success  = true
}
