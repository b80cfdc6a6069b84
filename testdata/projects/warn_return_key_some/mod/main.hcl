workflow "mod" {
  version       = "1"
  initial_state = "sw"
  target_state  = "done"
}
variable "v" { type = string }
switch "sw" {
  match {
    condition = var.v == "a"
    next      = return
    output    = { ka = "A", both = "1" }
  }
  default {
    next   = return
    output = { kb = "B", both = "2" }
  }
}
state "done" { terminal = true }
