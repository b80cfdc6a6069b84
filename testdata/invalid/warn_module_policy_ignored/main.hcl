# A called module's policy has no effect: the root workflow's policy governs the run tree (a warning).
workflow {
  name          = "caller"
  version       = "1"
  initial_state = "call"
  target_state  = "done"
}

policy {
  max_total_steps = 20
}

subworkflow "check" {
  source = "./m"
}

step "call" {
  target = subworkflow.check
  outcome "success" { next = state.done }
}

state "done" {
  terminal = true
}
