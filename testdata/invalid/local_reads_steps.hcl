# Locals are computed once, before any step runs: a local cannot read a step's output.
workflow {
  name          = "demo"
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

locals {
  version = trimspace(steps.build.stdout)
}

adapter "shell" "default" {}

step "build" {
  target = adapter.shell.default
  input { command = "echo 1.2.3" }
  outcome "success" { next = step.publish }
  outcome "failure" { next = state.done }
}

step "publish" {
  target = adapter.shell.default
  input { command = "echo ${local.version}" }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.done }
}

state "done" {
  terminal = true
  success  = true
}
