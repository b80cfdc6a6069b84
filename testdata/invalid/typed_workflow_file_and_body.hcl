# type = "workflow" with both a workflow_file and an inline body: which one runs is unclear.
workflow "tw" {
  version = "1"
  initial_state = "loop"
  target_state = "done"
  step "loop" {
    type = "workflow"
    count = 2
    workflow_file = "./body.hcl"
    workflow {
      step "n" {
        adapter = "noop"
        outcome "success" { transition_to = "_continue" }
      }
    }
    outcome "all_succeeded" { transition_to = "done" }
    outcome "any_failed" { transition_to = "done" }
  }
  state "done" { terminal = true }
}
