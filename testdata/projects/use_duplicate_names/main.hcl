# Two flows named "style" in use, and an agent block named "style" too: agent.style would be
# ambiguous (found by a new-user trial: the first silently won).
workflow {
  name          = "main"
  version       = "1"
  initial_state = "ask"
  target_state  = "done"
  use           = ["./flows/a/style.hcl", "./flows/b/style.hcl"]
}
step "ask" {
  target = agent.style
  input { task = "t" }
  outcome "success" { next = state.done }
}
state "done" { terminal = true }
