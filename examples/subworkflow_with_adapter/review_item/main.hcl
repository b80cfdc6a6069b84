# One file's review: a shell check on the subworkflow's own adapter, then the caller's
# reviewer agent (listed in expects, passed by the caller as agents = [agent.reviewer]).
workflow {
  name          = "review_item"
  version       = "1"
  initial_state = "check"
  target_state  = "reviewed"
  expects {
    agents = [agent.reviewer]
  }
}

variable "file" {
  type        = string
  description = "The file to review."
}

variable "strict" {
  type    = bool
  default = false
}

adapter "shell" "local" {}

step "check" {
  target = adapter.shell.local
  input {
    command = "printf 'checked %s\\n' '${var.file}'"
  }
  outcome "success" { next = step.review }
  outcome "failure" { next = state.rejected }
}

step "review" {
  target = agent.reviewer
  input {
    prompt = "Review ${var.file}${var.strict ? " strictly" : ""}: ${trimspace(steps.check.stdout)}"
  }
  outcome "approved"          { next = state.reviewed }
  outcome "changes_requested" { next = state.rejected }
}

state "reviewed" { terminal = true }
state "rejected" {
  terminal = true
  success  = false
}

output "file" {
  type  = string
  value = var.file
}

output "verdict" {
  type  = string
  value = steps.review.answer
}
