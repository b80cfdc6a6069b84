workflow {
  name          = "x"
  version       = "1"
  initial_state = "ask"
  target_state  = "done"
  use           = ["./y.hcl"]
}

step "ask" {
  target = agent.y
  input { task = input.task }
  outcome "success" { next = state.done }
}

state "done" { terminal = true }
