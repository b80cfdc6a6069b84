# on_failure decides how an iterating step treats failed items; this step does not iterate.
workflow {
  name          = "demo"
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

adapter "shell" "default" {}

step "build" {
  target     = adapter.shell.default
  on_failure = "ignore"
  input { command = "make" }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.done }
}

state "done" {
  terminal = true
  success  = true
}
