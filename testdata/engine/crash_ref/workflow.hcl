# Reference workflow of the crash matrix (docs/architecture.md, The engine): every shell step appends one
# line to var.log, so a step run twice shows up twice. It has a top-level step, a
# for_each over an adapter step, a count body of two steps, and an output.
workflow "crash_ref" {
  version       = "1"
  initial_state = "prepare"
  target_state  = "done"
}

variable "log" {
  type        = "string"
  description = "file the steps append to"
}

adapter "shell" "default" {}

step "prepare" {
  target = adapter.shell.default
  input { command = "echo prepare >> '${var.log}' && echo ready" }
  outcome "success" { next = "fan" }
  outcome "failure" { next = "failed" }
}

step "fan" {
  target   = adapter.shell.default
  for_each = ["a", "b"]
  input { command = "echo fan-${each.value} >> '${var.log}'" }
  outcome "all_succeeded" { next = "loop" }
  outcome "any_failed"    { next = "failed" }
}

step "loop" {
  count = 2
  workflow {
    step "work" {
      target = adapter.shell.default
      input { command = "echo work-${each._idx} >> '${var.log}'" }
      outcome "success" { next = "check" }
      outcome "failure" { next = "_continue" }
    }
    step "check" {
      target = adapter.shell.default
      input { command = "echo check-${each._idx} >> '${var.log}'" }
      outcome "success" { next = "_continue" }
      outcome "failure" { next = "_continue" }
    }
  }
  outcome "all_succeeded" { next = "finish" }
  outcome "any_failed"    { next = "failed" }
}

step "finish" {
  target = adapter.shell.default
  input { command = "echo finish >> '${var.log}' && echo all-done" }
  outcome "success" { next = "done" }
  outcome "failure" { next = "failed" }
}

state "done" { terminal = true }
state "failed" {
  terminal = true
  success  = false
}

output "summary" {
  value = "${steps.prepare.stdout}/${steps.finish.stdout}"
}
