# workflow_file = "../fixtures/body.hcl" is not supported yet (not_supported).
workflow "demo" {
  version       = "1"
  initial_state = "loop"
  target_state  = "done"
}

step "loop" {
  count         = 2
  workflow_file = "../fixtures/body.hcl"
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed"    { next = "done" }
}

state "done" { terminal = true }
