# Two levels of nested runs under a step budget of 2: going down the chain takes at least 3 step visits (a warning).
workflow {
  name          = "budget"
  version       = "1"
  initial_state = "call"
  target_state  = "done"
}

policy {
  max_total_steps = 2
}

subworkflow "review" {
  source = "./review"
}

step "call" {
  target = subworkflow.review
  outcome "success" { next = state.done }
}

state "done" {
  terminal = true
}
