# A module that can end at a "return" whose projection leaves its declared output "summary"
# out: the projection replaces the output blocks there, so a caller reading summary finds
# nothing when the review ends early.
workflow {
  name          = "review"
  version       = "1"
  initial_state = "review"
  target_state  = "done"
}
adapter "shell" "default" {}
step "review" {
  target = adapter.shell.default
  input { command = "echo approve" }
  outcome "success" {
    next   = "return"
    output = { verdict = trimspace(step.output.stdout) }
  }
  outcome "failure" { next = "done" }
}
state "done" { terminal = true }
output "verdict" { value = "none" }
output "summary" { value = "reviewed" }
