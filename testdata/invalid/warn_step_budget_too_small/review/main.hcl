workflow {
  name          = "review"
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
}

state "done" {
  terminal = true
}
