# Seed 000, A5: the reviewer flow does not parse.
workflow {
  name          = "chief"
  version       = "1"
  initial_state = "review"
  target_state  = "done"
  use           = ["./flows/reviewer.hcl"]
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
