# Non-ASCII text before the mistake on the same line: var.nmae is unknown (the
# variable is "name"); the column counts UTF-16 units after "café 🎉".
workflow "demo" {
  version       = "1"
  initial_state = "greet"
  target_state  = "done"
}

variable "name" {
  type    = "string"
  default = "world"
}

step "greet" {
  adapter = "noop"
  input { label = "café 🎉 ${var.nmae}" }
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
