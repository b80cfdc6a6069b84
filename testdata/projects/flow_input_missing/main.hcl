# A step calls the reviewer flow without input "task", which the flow reads.
workflow {
  name          = "chief"
  version       = "1"
  initial_state = "review"
  target_state  = "done"
  use           = ["./flows/reviewer.hcl"]
}

step "review" {
  target = agent.reviewer
  input { tsk = "review the diff" }
  outcome "success" { next = state.done }
}

state "done" { terminal = true }
