# variable "name" has type "text", which is not a type (string, number, bool, ...).
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

variable "name" {
  type    = "text"
  default = "world"
}

step "build" {
  adapter = "noop"
  input { greeting = "hello ${var.name}" }
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
