workflow "b" {
  version = "1"
  initial_state = "pick"
  target_state = "done"
}
variable "mode" {
  type = "string"
  default = "fast"
}
branch "pick" {
  arm {
    when = "ture"
    next = "done"
  }
  default {
    next = "other"
  }
}
state "done" { terminal = true }
state "other" { terminal = true }
