# lint calls fmt, fmt calls lint: refused before anything runs, with the chain.
workflow {
  name          = "main"
  version       = "1"
  initial_state = "lint"
  target_state  = "done"
}

subworkflow "lint" {
  source = "./lint"
}

step "lint" {
  target = subworkflow.lint
  outcome "success" { next = state.done }
  outcome "failure" { next = state.done }
}

state "done" { terminal = true }
