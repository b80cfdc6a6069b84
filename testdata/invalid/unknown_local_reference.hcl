# local.greting: the local is "greeting" (unknown_reference, did-you-mean).
workflow "demo" {
  version       = "1"
  initial_state = "hello"
  target_state  = "done"
}

locals {
  greeting = "hello"
}

adapter "shell" "default" {}

step "hello" {
  target = adapter.shell.default
  input { command = local.greting }
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
