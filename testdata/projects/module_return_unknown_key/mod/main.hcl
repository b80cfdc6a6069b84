# Declares no outputs and ends only by return: its caller gets the projection alone.
workflow "mod" {
  version       = "1"
  initial_state = "work"
}
adapter "shell" "default" {}
step "work" {
  target = adapter.shell.default
  input { command = "echo hi" }
  outcome "success" {
    next   = "return"
    output = { pkg = trimspace(step.output.stdout) }
  }
  outcome "failure" { next = state.broken }
}
state "broken" {
  terminal = true
  success  = false
}
