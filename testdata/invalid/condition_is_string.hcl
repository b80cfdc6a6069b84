# "${var.env} == prod" is a string (text outside ${}): as a condition it would always hold.
workflow {
  name          = "demo"
  version       = "1"
  initial_state = "route"
  target_state  = "done"
}

variable "env" {
  type    = string
  default = "dev"
}

switch "route" {
  match {
    condition = "${var.env} == prod"
    next      = state.done
  }
  default { next = state.done }
}

state "done" {
  terminal = true
  success  = true
}
