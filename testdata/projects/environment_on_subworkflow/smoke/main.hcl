workflow {
  name          = "smoke"
  version       = "1"
  initial_state = "check"
  target_state  = "done"
}
adapter "shell" "default" {}
step "check" {
  target = adapter.shell.default
  input { command = "echo CI=$CI" }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.failed }
}
state "done" { terminal = true }
state "failed" {
  terminal = true
  success  = false
}
