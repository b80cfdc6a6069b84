# Older forms the Go tool accepted: transition_to in switch conditions, branch arms and default blocks; an inline body's entry.
workflow "demo" {
  version       = "1"
  initial_state = "route"
  target_state  = "done"
}

variable "env" {
  type    = "string"
  default = "dev"
}

switch "route" {
  condition {
    match         = var.env == "prod"
    transition_to = "done"
  }
  default {
    transition_to = "other"
  }
}


branch "other" {
  arm {
    when          = var.env == "dev"
    transition_to = "loop"
  }
  default = "done"
}

step "loop" {
  count = 1
  workflow {
    entry = "inner"
    step "inner" {
      adapter = "noop"
      outcome "success" { next = "_continue" }
    }
  }
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed"    { next = "done" }
}

state "done" { terminal = true }
