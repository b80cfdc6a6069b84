# Reference workflow of the crash matrix for composition (docs/language.md, Composition): a subworkflow that
# runs on a passed-in adapter (the parent's shell session) and one of its own, a flow used
# as an agent, and an iterating subworkflow step. Every shell step appends one line to
# var.log, so a step run twice shows up twice.
workflow {
  name          = "crash_nested"
  version       = "1"
  initial_state = "prepare"
  target_state  = "done"
  use           = ["./flows/helper.hcl"]
}

variable "log" {
  type        = string
  description = "file the steps append to"
}

adapter "shell" "default" {}

subworkflow "stage" {
  source   = "./stage"
  adapters = [adapter.shell.default]
  input = {
    log = var.log
  }
}

step "prepare" {
  target = adapter.shell.default
  input { command = "echo prepare >> '${var.log}' && echo ready" }
  outcome "success" { next = step.stage }
  outcome "failure" { next = state.failed }
}

step "stage" {
  target = subworkflow.stage
  input { tag = "single" }
  outcome "success" { next = step.ask }
  outcome "failure" { next = state.failed }
}

step "ask" {
  target = agent.helper
  input {
    log  = var.log
    task = "help with ${steps.stage.tag}"
  }
  outcome "success" { next = step.fan }
  outcome "failure" { next = state.failed }
}

step "fan" {
  target   = subworkflow.stage
  for_each = ["x", "y"]
  input { tag = each.value }
  outcome "all_succeeded" { next = step.finish }
  outcome "any_failed"    { next = state.failed }
}

step "finish" {
  target = adapter.shell.default
  input { command = "echo finish >> '${var.log}' && echo all-done" }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.failed }
}

state "done" { terminal = true }
state "failed" {
  terminal = true
  success  = false
}

output "summary" {
  value = "${steps.prepare.stdout}/${steps.ask.answer}/${join(",", [for s in steps.fan : s.tag])}/${steps.finish.stdout}"
}
