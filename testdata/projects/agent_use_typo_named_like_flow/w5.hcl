workflow "w" {
  version       = "1"
  initial_state = "a"
  target_state  = "done"
}

adapter "shell" "default" {}

step "a" {
  target = adapter.shell.default
  input { command = "true" }
  outcome "success" { next = "done" }
  outcome "failure" { next = "failed" }
}

state "done" {
  terminal = "maybe"
}

state "failed" {
  terminal = true
  success  = false
}
