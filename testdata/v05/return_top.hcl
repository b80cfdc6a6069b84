# At the top level, next = return ends the run successfully; the outcome's projection is the run's outputs.
workflow {
  name          = "return-top"
  version       = "1"
  initial_state = "check"
  target_state  = "done"
}

adapter "shell" "default" {}

step "check" {
  target = adapter.shell.default
  input { command = "echo ready" }
  outcome "success" {
    next   = "return"
    output = { status = trimspace(step.output.stdout), checked = true }
  }
  outcome "failure" { next = state.done }
}

output "status" {
  value = "never used: the return projection wins"
}

state "done" {
  terminal = true
  success  = true
}
