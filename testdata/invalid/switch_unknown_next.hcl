# A switch condition goes to state.deplyo; the state is "deploy".
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

variable "env" {
  type    = "string"
  default = "staging"
}

step "build" {
  adapter = "noop"
  outcome "success" { next = "decide" }
}

switch "decide" {
  condition {
    match = var.env == "prod"
    next  = state.deplyo
  }
  default {
    next = state.done
  }
}

state "deploy" { terminal = true }
state "done" { terminal = true }
