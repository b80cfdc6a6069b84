workflow "w" {
  version       = "1"
  initial_state = "run"
  target_state  = "done"
  environment   = "shell.nope"
}
adapter "shell" "default" {}
step "run" {
  target = adapter.shell.default
  input { command = "true" }
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
