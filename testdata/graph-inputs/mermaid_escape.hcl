workflow {
  name          = "m"
  version       = "1"
  initial_state = "pick"
  target_state  = "done"
}

variable "a" {
  type    = number
  default = 1
}

variable "b" {
  type    = number
  default = 2
}

switch "pick" {
  match {
    condition = var.a<var.b && var.b>0 && "#1" != ""
    next      = state.done
  }
  default { next = state.done }
}

state "done" {
  terminal = true
}
