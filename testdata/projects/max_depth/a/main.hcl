workflow {
  name          = "a"
  version       = "1"
  initial_state = "call"
  target_state  = "done"
}

subworkflow "b" {
  source = "../b"
}

step "call" {
  target = subworkflow.b
  outcome "success" { next = state.done }
  outcome "failure" { next = state.done }
}

state "done" { terminal = true }
