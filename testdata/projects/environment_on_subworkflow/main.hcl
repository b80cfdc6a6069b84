# The Go tool's rule (v0.5.7 workflow.md, Step-level environment override): an
# environment on a step that calls a subworkflow is an error (criteria accepted it, and
# the child never saw its variables); one on the subworkflow block is known but not
# built here (it said only "unsupported argument or block"). Found by a trial of the Go
# tool's language.
workflow {
  name          = "main"
  version       = "1"
  initial_state = "run_smoke"
  target_state  = "done"
}

environment "shell" "ci" {
  variables = { CI = "true" }
}

subworkflow "smoke_test" {
  source      = "./smoke"
  environment = shell.ci
}

step "run_smoke" {
  target      = subworkflow.smoke_test
  environment = shell.ci
  outcome "success" { next = state.done }
  outcome "failure" { next = state.done }
}

state "done" { terminal = true }
