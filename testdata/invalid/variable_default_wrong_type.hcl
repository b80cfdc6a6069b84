# variable "retries" is a number, but its default is the string "many".
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

variable "retries" {
  type    = "number"
  default = "many"
}

step "build" {
  adapter = "noop"
  input { retries = var.retries }
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
