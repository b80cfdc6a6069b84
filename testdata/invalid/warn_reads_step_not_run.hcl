# Reading a step that may not have run (found by a new-user trial: validate said ok, the run
# failed): "review" runs only when "build" succeeds, so "report" and the output "verdict" can
# come without it; in the executor/reviewer loop, "execute" runs first without "critique".
# Reads behind try(), can() ? :, && are not flagged, and neither is a read of a step every
# path passes ("build" from "report").
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
  input {
    command = "echo review said: ${steps.review.stdout}"
    built   = "${steps.build.exit_code}"
    guarded = "${try(steps.review.stdout, "")} ${can(steps.review) ? steps.review.stdout : ""}"
    and     = "${can(steps.review) && steps.review.exit_code == 0}"
  }
  outcome "success" { next = step.execute }
  outcome "failure" { next = step.execute }
}

step "execute" {
  target     = adapter.shell.default
  max_visits = 3
  input { command = "echo fix: ${steps.critique.stdout}" }
  outcome "success" { next = step.critique }
}

step "critique" {
  target     = adapter.shell.default
  max_visits = 3
  input { command = "echo ${steps.execute.stdout}" }
  outcome "success" { next = state.done }
  outcome "failure" { next = step.execute }
}

output "verdict" {
  value = steps.review.stdout
}

output "last" {
  value = steps.critique.stdout
}

state "done" {
  terminal = true
}
