# Seed 000, A7: X uses Y, Y uses X: refused at load, with the chain.
workflow {
  name          = "main"
  version       = "1"
  initial_state = "ask"
  target_state  = "done"
  use           = ["./flows/x.hcl"]
}

step "ask" {
  target = agent.x
  input { task = "t" }
  outcome "success" { next = state.done }
}

state "done" { terminal = true }
