# A step that may not have run, read through try() and can() (found by a new-user trial: no guard worked).
workflow {
  name          = "e5"
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

adapter "shell" "default" {}

step "build" {
  target = adapter.shell.default
  input { command = "exit 3" }
  outcome "success" { next = step.review }
  outcome "failure" { next = step.report }
}

step "review" {
  target = adapter.shell.default
  input { command = "echo LGTM" }
  outcome "success" { next = step.report }
  outcome "failure" { next = step.report }
}

step "report" {
  target = adapter.shell.default
  input { command = "echo review said: ${try(steps.review.stdout, "nothing")}" }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.done }
}

output "verdict" {
  value = can(steps.review) ? steps.review.stdout : try(steps.build.stdout, "a"[0])
}

state "done" {
  terminal = true
}
