# Mistakes in calls found by a new-user trial, each validating before: a subworkflow that reads
# input.* (it is given variables), a subworkflow input written as a string, a literal of the
# wrong type for a flow variable, steps.x.k on an iterating step (a list), and an unknown
# output of a body that declares its outputs.
workflow {
  name          = "main"
  version       = "1"
  initial_state = "call"
  target_state  = "done"
  use           = ["./flows/f.hcl"]
}
adapter "noop" "default" {}

subworkflow "child" {
  source = "./child"
  input  = "${var.nope}"
}

step "call" {
  target   = subworkflow.child
  for_each = ["a", "b"]
  outcome "all_succeeded" { next = step.ask }
  outcome "any_failed"    { next = state.done }
}

step "ask" {
  target = agent.f
  input {
    task  = "t"
    level = "abc"
  }
  outcome "success" { next = step.body }
}

step "body" {
  workflow {
    step "inner" {
      target = adapter.noop.default
      outcome "success" { next = "return" }
    }
    output "bo" { value = "x" }
  }
  outcome "success" { next = step.use }
}

step "use" {
  target = adapter.noop.default
  input {
    a = steps.call.tag
    b = steps.body.nope
  }
  outcome "success" { next = state.done }
}

state "done" { terminal = true }
