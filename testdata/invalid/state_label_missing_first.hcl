# A state block without its label before a labelled one: the error is at the one without
# (it was at the good one), the other named beside it (a trial of the Go tool's language).
workflow {
  name          = "t"
  version       = "1"
  initial_state = "a"
  target_state  = "done"
}
adapter "shell" "default" {}
step "a" {
  target = adapter.shell.default
  input { command = "echo hi" }
  outcome "success" { next = state.done }
}
state {
  terminal = true
}
state "done" {
  terminal = true
}
