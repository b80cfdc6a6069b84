# The style flow: one scripted linter pass over the task. Used by the reviewer and by triage.
workflow {
  name          = "style"
  version       = "1"
  initial_state = "lint"
  target_state  = "done"
}

agent "linter" {
  adapter = "local"
  config {
    script = "../scripts/style.json"
  }
}

step "lint" {
  target = agent.linter
  input {
    prompt = "Style notes for: ${input.task}"
  }
  outcome "success" { next = state.done }
}

state "done" { terminal = true }

output "notes" {
  type  = string
  value = steps.lint.answer
}
