# agent "reviewer" { use = "../fixtures/reviewer.hcl" }: flow agents are not supported yet.
workflow "demo" {
  version       = "1"
  initial_state = "review"
  target_state  = "done"
}

agent "reviewer" {
  use = "../fixtures/reviewer.hcl"
}

step "review" {
  target = agent.reviewer
  input { task = "review the diff" }
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
