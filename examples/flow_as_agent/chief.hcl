# flow_as_agent — docs/language.md, Composition: flows used as agents. The chief composes two flows by `use`:
# the reviewer (a flow with its own identity and memory) and triage. Both use the style
# flow, and triage uses the reviewer too: a diamond, each file loaded once. Calling a flow
# runs it as a nested run journaled under the calling step, with the flow's identity.
# Run it: criteria apply examples/flow_as_agent/chief.hcl --input '{"task": "..."}'
workflow {
  name          = "chief"
  version       = "1"
  initial_state = "triage"
  target_state  = "done"
  use           = ["./flows/reviewer.hcl", "./flows/triage.hcl"]
}

step "triage" {
  target = agent.triage
  input {
    task = input.task
  }
  outcome "success" { next = step.review }
  outcome "failure" { next = state.failed }
}

step "review" {
  target = agent.reviewer
  input {
    task = "${input.task} (triaged: ${steps.triage.priority})"
  }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.failed }
}

state "done" { terminal = true }
state "failed" {
  terminal = true
  success  = false
}

output "verdict" {
  type  = string
  value = steps.review.verdict
}
