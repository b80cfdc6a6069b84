# fileset() of a directory that does not exist: the run fails there (as the Go tool's does,
# "so failures are loud"), unless an earlier step makes it: a warning, not an error (found
# by a trial of the Go tool's docs: validate said nothing, the run failed).
workflow "prompts" {
  version       = "1"
  initial_state = "each_prompt"
  target_state  = "done"
}
adapter "shell" "default" {}
step "each_prompt" {
  target   = adapter.shell.default
  for_each = fileset("prompts-not-made", "*.md")
  input { command = "wc -c ${each.value}" }
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "done" }
}
state "done" { terminal = true }
