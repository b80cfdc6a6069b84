# step.output is the step's own result: only an outcome's output or write reads it.
workflow {
  name          = "demo"
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

adapter "shell" "default" {}

step "build" {
  target = adapter.shell.default
  input { command = "echo ${step.output.stdout}" }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.done }
}

state "done" {
  terminal = true
  success  = true
}
