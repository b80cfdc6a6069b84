# Runs would nest 3 deep (main > a > b > a body), past max_depth = 2: refused with the chain.
workflow {
  name          = "main"
  version       = "1"
  initial_state = "call"
  target_state  = "done"
}

policy {
  max_depth = 2
}

subworkflow "a" {
  source = "./a"
}

step "call" {
  target = subworkflow.a
  outcome "success" { next = state.done }
  outcome "failure" { next = state.done }
}

state "done" { terminal = true }
