# A step targets a declared subworkflow, which is not supported yet (not_supported).
workflow "demo" {
  version       = "1"
  initial_state = "run_inner"
  target_state  = "done"
}

subworkflow "inner" {
  source = "../fixtures/inner"
  input  = { work = "demo" }
}

step "run_inner" {
  target = subworkflow.inner
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
