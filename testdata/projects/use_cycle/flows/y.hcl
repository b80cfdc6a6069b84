workflow {
  name          = "y"
  version       = "1"
  initial_state = "ask"
  target_state  = "done"
  use           = ["./x.hcl"]
}

step "ask" {
  target = agent.x
  input { task = input.task }
  outcome "success" { next = state.done }
}

state "done" { terminal = true }
