# Found by a new-user trial: a list (and an object) bound to a module variable of a single-value type passed validate and failed the run; a number bound to a string converts.
workflow "main" {
  version       = "1"
  initial_state = "call"
  target_state  = "done"
}
variable "names" {
  type    = list(string)
  default = ["a"]
}
variable "obj" {
  type    = object({ k = string })
  default = { k = "v" }
}
variable "count" {
  type    = number
  default = 2
}
subworkflow "m" {
  source = "./mod"
  input  = { name = var.names, n = var.obj, flags = var.names }
}
subworkflow "ok" {
  source = "./mod"
  input  = { name = var.count, n = var.count, flags = [true] }
}
step "call" {
  target = subworkflow.m
  outcome "success" { next = "call2" }
}
step "call2" {
  target = subworkflow.ok
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
