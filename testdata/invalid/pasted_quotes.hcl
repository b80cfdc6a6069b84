# Quotes pasted from a chat or a word processor: named, with the fix (found by a trial of
# the Go tool's docs: they were told to be quoted). invisible_character.hcl: the other paste.
workflow "t" {
  version       = "1"
  initial_state = "s"
  target_state  = "done"
}
adapter "shell" "default" {}
step "s" {
  target = adapter.shell.default
  input { command = “echo hi” }
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
