# A body cannot declare a variable without a default (nothing binds it), nor module header
# fields (use, expects, memory, identity): found by a new-user trial, where they validated.
workflow {
  name          = "main"
  version       = "1"
  initial_state = "loop"
  target_state  = "done"
}
step "loop" {
  workflow_file = "./b/body.hcl"
  outcome "success" { next = state.done }
}
state "done" { terminal = true }
