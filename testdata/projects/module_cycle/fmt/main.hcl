workflow {
  name          = "fmt"
  version       = "1"
  initial_state = "call"
  target_state  = "done"
}

subworkflow "lint" {
  source = "../lint"
}

step "call" {
  target = subworkflow.lint
  outcome "success" { next = state.done }
  outcome "failure" { next = state.done }
}

state "done" { terminal = true }
