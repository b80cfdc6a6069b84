# switch arms (match/default) store their output as steps.<switch>.*.
workflow {
  name          = "switch-output"
  version       = "1"
  initial_state = "route"
  target_state  = "done"
}

variable "env" {
  type    = string
  default = "staging"
}

adapter "shell" "default" {}

switch "route" {
  match {
    condition = var.env == "prod"
    next      = step.deploy
    output    = { replicas = 5, label = "production" }
  }
  match {
    condition = var.env == "staging"
    next      = step.deploy
    output    = { replicas = 2, label = "staging" }
  }
  default {
    next   = state.done
    output = { replicas = 0, label = "none" }
  }
}

step "deploy" {
  target = adapter.shell.default
  input { command = "echo deploying ${steps.route.replicas} to ${steps.route.label}" }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.done }
}

state "done" {
  terminal = true
  success  = true
}
