# A state written inside a step: said where it belongs (found by a trial of the Go tool's
# docs: the hint asked whether it meant "type").
workflow "t" {
  version = "1"
  initial_state = "s"
  target_state = "done"
}
adapter "shell" "default" {}
state "done" { terminal = true }
step "s" {
  target = adapter.shell.default
  input { command = "echo" }
  state "x" { terminal = true }
  outcome "success" { next = "done" }
}
