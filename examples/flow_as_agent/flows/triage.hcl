# The triage flow: style notes, then a second opinion from the reviewer flow.
workflow {
  name          = "triage"
  version       = "1"
  initial_state = "style"
  target_state  = "done"
  use           = ["./reviewer.hcl", "./style.hcl"]
}

step "style" {
  target = agent.style
  input {
    task = input.task
  }
  outcome "success" { next = step.second_opinion }
}

step "second_opinion" {
  target = agent.reviewer
  input {
    task = "first look: ${input.task}"
  }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.done }
}

state "done" { terminal = true }

output "priority" {
  type  = string
  value = length(steps.style.notes) > 20 ? "high" : "normal"
}
