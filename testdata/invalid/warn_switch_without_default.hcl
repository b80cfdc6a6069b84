# A switch without a default (and no condition that always holds) is warned about (the upstream spec, "Switch").
workflow {
  name          = "sw"
  version       = "1"
  initial_state = "route"
  target_state  = "done"
}

variable "x" {
  type    = any
  default = 1
}

adapter "noop" "default" {}

switch "route" {
  match {
    condition = var.x
    next      = step.s
  }
}

step "s" {
  target = adapter.noop.default
  outcome "success" { next = state.done }
}

state "done" {
  terminal = true
  success  = true
}
