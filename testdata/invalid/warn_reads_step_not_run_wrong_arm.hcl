# A read guarded by can() in the wrong branch (found by a trial of try/can: validate said
# nothing, the run failed at the read): the branch taken when can(steps.review) is false,
# the right of `!can(...) &&` and of `can(...) ||`. The right branch, a can() of another
# step and a can() of another field of the step are left alone.
workflow {
  name          = "wrong_arm"
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
    command = "echo ${can(steps.review) ? "" : steps.review.stdout}"
    negated = "${!can(steps.review) ? steps.review.stdout : "none"}"
    and     = "${!can(steps.review) && steps.review.exit_code == 0}"
    or      = "${can(steps.review.stdout) || steps.review.stdout == ""}"
    right   = "${!can(steps.review) ? "none" : steps.review.stdout}"
    other   = "${can(steps.build) ? "" : steps.review.stdout}"
    field   = "${can(steps.review.stderr) ? "" : steps.review.stdout}"
  }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.done }
}

state "done" {
  terminal = true
}
