# subworkflow_with_adapter — docs/language.md, Composition's pattern: the parent's agent is passed to a per-item
# subworkflow (Option A) and runs there on the parent's live session, opened once for all
# items; the subworkflow also declares a shell adapter of its own (Option B), which gets its
# own session in each child run. Agents use the deterministic `local` adapter (./scripts).
workflow {
  name          = "review_each_file"
  version       = "1"
  initial_state = "review_files"
  target_state  = "done"
}

variable "files" {
  type        = list(string)
  default     = ["src/parser.ts", "src/lexer.ts", "src/eval.ts"]
  description = "The files to review, one child run each."
}

agent "reviewer" {
  adapter = "local"
  model   = "scripted-copilot-reviewer"
  config {
    script = "./scripts/reviewer.json"
  }
}

subworkflow "review_item" {
  source = "./review_item"
  agents = [agent.reviewer]
  input = {
    strict = true
  }
}

step "review_files" {
  target   = subworkflow.review_item
  for_each = var.files
  input {
    file = each.value
  }
  outcome "all_succeeded" { next = step.summarize }
  outcome "any_failed"    { next = state.failed }
}

step "summarize" {
  target = adapter.shell.default
  input {
    command = "printf '%s\\n' ${join(" ", [for r in steps.review_files : "'${r.file}: ${r.verdict}'"])}"
  }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.failed }
}

adapter "shell" "default" {}

state "done" { terminal = true }
state "failed" {
  terminal = true
  success  = false
}

output "verdicts" {
  type  = list(string)
  value = [for r in steps.review_files : r.verdict]
}
