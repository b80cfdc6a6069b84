workflow "outer" {
  version       = "1"
  initial_state = "loop"
  target_state  = "done"
}

adapter "shell" "default" {}

step "loop" {
  workflow {
    policy {
      max_depth = 1
    }
    step "inner" {
      target = adapter.shell.default
      input { command = "echo hi" }
      outcome "success" { next = "return" }
    }
  }
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
