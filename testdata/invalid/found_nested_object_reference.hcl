# A reference inside an object value of an input: checked like any other.
workflow "w" {
  version       = "1"
  initial_state = "s"
  target_state  = "done"
}
variable "who" { type = "string" }
step "s" {
  adapter = "noop"
  input {
    nested = { x = var.no_such_variable }
  }
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
