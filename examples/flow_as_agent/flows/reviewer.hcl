# The reviewer flow: a team reviewer with an identity and memory. Its first step receives
# the memory pack: what this identity's earlier runs concluded, recalled from the journal.
workflow {
  name          = "reviewer"
  version       = "1"
  initial_state = "style"
  target_state  = "done"
  identity      = "team-reviewer"
  use           = ["./style.hcl"]
  memory {
    script = true
  }
}

agent "model" {
  adapter = "local"
  config {
    script = "../scripts/reviewer.json"
  }
}

step "style" {
  target = agent.style
  input {
    task = input.task
  }
  outcome "success" { next = step.review }
  outcome "failure" { next = state.failed }
}

step "review" {
  target = agent.model
  input {
    prompt = <<-EOT
      Review: ${input.task}
      Style notes: ${steps.style.notes}
      What you said before: ${memory.text}
    EOT
  }
  outcome "approved"          { next = state.done }
  outcome "changes_requested" { next = state.failed }
}

state "done" { terminal = true }
state "failed" {
  terminal = true
  success  = false
}

output "verdict" {
  type  = string
  value = steps.review.answer
}
