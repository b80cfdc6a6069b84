# multi_file — one workflow split over several files in a directory, merged in name order
# (agents.hcl, steps.hcl, workflow.hcl): a Codex executor session, a Claude CLI reviewer and a
# shell CI inline body (steps.hcl).
# This is the example with real agent CLIs (`codex`, `claude`); tests put fake ones on PATH.
workflow "multi_file" {
  version       = "3"
  initial_state = "implement"
  target_state  = "ready"
}

variable "issue" {
  type        = "string"
  default     = "#2187 add --dry-run to the sync command"
  description = "The issue to implement."
}

variable "test_command" {
  type        = "string"
  default     = "echo 'sync: 31 passed'"
  description = "The command CI runs."
}

local "pr_title" {
  value = "feat: ${substr(var.issue, 6, -1)}"
}

policy {
  max_total_steps           = 30
  max_step_retries          = 2
  max_visits_warn_threshold = 5
}

state "ready" {
  terminal = true
}

state "abandoned" {
  terminal = true
  success  = false
}

output "pr_title" {
  type        = "string"
  description = "Title for the pull request the loop produced."
  value       = local.pr_title
}
