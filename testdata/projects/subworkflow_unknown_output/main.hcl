# steps.<step>.<output> of a subworkflow step is checked against the callee's outputs.
workflow {
  name          = "main"
  version       = "1"
  initial_state = "call"
  target_state  = "done"
}

adapter "noop" "default" {}

subworkflow "child" {
  source = "./child"
}

step "call" {
  target = subworkflow.child
  outcome "success" { next = step.use }
  outcome "failure" { next = state.done }
}

step "use" {
  target = adapter.noop.default
  input { value = steps.call.reslt }
  outcome "success" { next = state.done }
}

state "done" { terminal = true }
