# A data value's initial value is a literal: it exists before anything runs (var.start is refused).
workflow {
  name          = "dv"
  version       = "1"
  initial_state = "a"
  target_state  = "done"
}

variable "start" {
  type    = number
  default = 3
}

adapter "noop" "default" {}

data "internal" "n" {
  type  = number
  value = var.start
}

data "internal" "m" {
  type  = number
}

step "a" {
  target = adapter.noop.default
  outcome "success" {
    next   = state.done
    output = { k = 1 }
    write {
      target = data.internal.m.value
      value  = output.nokey
    }
  }
}

output "n" { value = data.internal.n.value }

state "done" {
  terminal = true
  success  = true
}
