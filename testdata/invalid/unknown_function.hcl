# jsonencod(...) is not a function of the stdlib (did-you-mean "jsonencode").
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

adapter "shell" "default" {}

step "build" {
  target = adapter.shell.default
  input {
    command = "make"
    env     = jsonencod({ CI = "1" })
  }
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
