workflow "main" {
  version = "1"
  initial_state = "ask"
  target_state = "done"
  use = ["./flows/reviewer.hcl"]
}
agent "reviewer" { use = "./flows/reviewr.hcl" }
step "ask" {
  agent = "reviewer"
  input = { task = "x" }
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
