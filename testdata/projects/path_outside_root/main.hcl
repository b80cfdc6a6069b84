# A subworkflow source and a workflow_file may not leave the root (the entry's directory),
# whether or not the path exists: refused before anything is opened.
workflow {
  name          = "main"
  version       = "1"
  initial_state = "call"
  target_state  = "done"
}

subworkflow "shared" {
  source = "../../invalid"
}

step "call" {
  target = subworkflow.shared
  outcome "success" { next = step.body }
  outcome "failure" { next = state.done }
}

step "body" {
  workflow_file = "../../../etc/passwd"
  outcome "success" { next = state.done }
}

state "done" { terminal = true }
