workflow {
  name          = "child"
  version       = "1"
  initial_state = "work"
  target_state  = "done"
}

variable "items" {
  type = list(string)
}

variable "retries" {
  type    = number
  default = 1
}

adapter "noop" "default" {}

step "work" {
  target = adapter.noop.default
  input { n = length(var.items) }
  outcome "success" { next = state.done }
}

state "done" { terminal = true }
