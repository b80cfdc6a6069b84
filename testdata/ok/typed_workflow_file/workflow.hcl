# type = "workflow" with a workflow_file (and no inline body): the body is the file (found by a
# new-user trial: refused twice, one error asking for the workflow_file it had).
workflow "tw" {
  version = "1"
  initial_state = "loop"
  target_state = "done"
  step "loop" {
    type = "workflow"
    count = 2
    workflow_file = "./body/step.hcl"
    outcome "all_succeeded" { transition_to = "done" }
    outcome "any_failed" { transition_to = "done" }
  }
  state "done" { terminal = true }
}
