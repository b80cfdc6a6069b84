# parallel_max and path.* as expressions.
workflow {
  name          = "parallel-max-var"
  version       = "1"
  initial_state = "fan"
  target_state  = "done"
}

variable "width" {
  type    = number
  default = 2
}

locals {
  items = ["a", "b", "c"]
}

adapter "shell" "default" {}

step "fan" {
  target       = adapter.shell.default
  parallel     = local.items
  parallel_max = var.width
  input { command = "echo ${each.value}" }
  outcome "all_succeeded" { next = step.where }
  outcome "any_failed"    { next = state.done }
}

step "where" {
  target = adapter.shell.default
  input { command = "echo ${path.module == path.root}" }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.done }
}

state "done" {
  terminal = true
  success  = true
}
