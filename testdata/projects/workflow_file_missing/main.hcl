# workflow_file names a body file that does not exist.
workflow {
  name          = "main"
  version       = "1"
  initial_state = "loop"
  target_state  = "done"
}

step "loop" {
  count         = 2
  workflow_file = "./body.hcl"
  outcome "all_succeeded" { next = state.done }
  outcome "any_failed"    { next = state.done }
}

state "done" { terminal = true }
