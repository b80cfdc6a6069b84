# A flow used as an agent: two shell steps on its own adapter; it reads input.log and input.task.
workflow {
  name          = "helper"
  version       = "1"
  initial_state = "one"
  target_state  = "done"
}

adapter "shell" "default" {}

step "one" {
  target = adapter.shell.default
  input { command = "echo helper-one >> '${input.log}'" }
  outcome "success" { next = step.two }
  outcome "failure" { next = state.failed }
}

step "two" {
  target = adapter.shell.default
  input { command = "echo helper-two >> '${input.log}' && echo 'helped: ${input.task}'" }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.failed }
}

state "done" { terminal = true }
state "failed" {
  terminal = true
  success  = false
}

output "answer" {
  value = trimspace(steps.two.stdout)
}
