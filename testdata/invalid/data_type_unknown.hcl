# Data value types are checked like variables': a literal of the wrong type, an unknown type, a default that does not fit.
workflow {
  name          = "dtype"
  version       = "1"
  initial_state = "a"
  target_state  = "done"
}

adapter "noop" "default" {}

data "internal" "n" {
  type  = number
  value = "abc"
}

data "internal" "m" {
  type  = strin
}

data "internal" "o" {
  type  = object({ a = optional(number, "zz") })
  value = {}
}

step "a" {
  target = adapter.noop.default
  outcome "success" {
    next = state.done
    write {
      target = data.internal.m.value
      value  = [1, 2]
    }
  }
}

output "m" { value = data.internal.m.value }
output "o" { value = data.internal.o.value }

state "done" {
  terminal = true
  success  = true
}
