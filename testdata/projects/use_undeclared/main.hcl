# Seed 000, A6: an agent is a flow that the header's use list does not declare.
workflow {
  name          = "chief"
  version       = "1"
  initial_state = "review"
  target_state  = "done"
}

agent "reviewer" {
  use = "./flows/reviewer.hcl"
}

step "review" {
  target = agent.reviewer
  input { task = "review the diff" }
  outcome "success" { next = state.done }
}

state "done" { terminal = true }
