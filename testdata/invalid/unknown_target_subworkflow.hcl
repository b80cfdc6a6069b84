# target = subworkflow.x: no subworkflow is declared.
workflow "demo" {
  version       = "1"
  initial_state = "run_inner"
  target_state  = "done"
}

step "run_inner" {
  target = subworkflow.x
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
