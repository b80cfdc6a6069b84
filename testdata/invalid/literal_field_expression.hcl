# Fields fixed at compile time take literal text: a signal's name, an approver, a version, a duration.
workflow {
  name          = "sig"
  version       = "v-${var.tok}"
  initial_state = "w"
  target_state  = "done"
}

variable "tok" {
  type = string
}

variable "wait" {
  type    = string
  default = "5s"
}

wait "w" {
  signal  = var.tok
  timeout = var.wait
  outcome "received" { next = approval.ap }
  outcome "timeout" { next = approval.ap }
}

approval "ap" {
  approvers = [var.tok, "ops"]
  reason    = "please"
  outcome "approved" { next = state.done }
  outcome "rejected" { next = state.done }
}

state "done" {
  terminal = true
  success  = true
}
