# input = { … } and an input { … } block on one step: the block was silently dropped (a trial of the Go tool's language).
workflow {
  name          = "t"
  version       = "1"
  initial_state = "a"
  target_state  = "done"
}
adapter "shell" "default" {}
step "a" {
  target = adapter.shell.default
  input = { command = "echo x" }
  input { command = "echo hi" }
  outcome "success" { next = state.done }
}
state "done" { terminal = true }
