# Paths written without their file's extension: each is named with it.
workflow "main" {
  version       = "1"
  initial_state = "package"
  target_state  = "done"
  use           = ["./flows/reviewr"]
}

adapter "shell" "default" {}

step "package" {
  workflow_file = "./bodies/package"
  outcome "success" { next = step.repackage }
}

step "repackage" {
  workflow_file = "./bodies/packge"
  outcome "success" { next = state.done }
}

state "done" { terminal = true }
