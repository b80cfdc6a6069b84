workflow "bad" {
  version       = "1"
  initial_state = "a"
  target_state  = "done"
}
adapter "shell" "default" {}
adapter "nosuch" "x" {}
step "a" {
  target = adapter.shell.default
  input { command = "exit 3" }
  outcome "success" { next = "b" }
  outcome "failure" { next = "b" }
}
step "b" {
  target = adapter.nosuch.x
  input { x = "1" }
  outcome "success" { next = "done" }
  outcome "failure" { next = "failed" }
}
state "done" { terminal = true }
state "failed" {
  terminal = true
  success  = false
}
