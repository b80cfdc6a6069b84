workflow "bad" {
  version       = "1"
  initial_state = "a"
  target_state  = "done"
}
adapter "shell" "default" {}
step "a" {
  target = adapter.shell.default
  input { command = "echo boom >&2; exit 3" }
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
