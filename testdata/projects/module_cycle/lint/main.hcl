workflow {
  name          = "lint"
  version       = "1"
  initial_state = "call"
  target_state  = "done"
}

subworkflow "fmt" {
  source = "../fmt"
}

step "call" {
  target = subworkflow.fmt
  outcome "success" { next = state.done }
  outcome "failure" { next = state.done }
}

state "done" { terminal = true }
