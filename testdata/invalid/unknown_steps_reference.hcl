# steps.biuld.stdout: the step is "build" (unknown_reference, did-you-mean).
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

adapter "shell" "default" {}

step "build" {
  target = adapter.shell.default
  input { command = "make" }
  outcome "success" { next = "report" }
}

step "report" {
  target = adapter.shell.default
  input { command = "echo ${steps.biuld.stdout}" }
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
