# Values are converted to their declared types at every depth: list(number) defaults, data values, undeclared object attributes dropped, optional defaults.
workflow {
  name          = "conv3"
  version       = "1"
  initial_state = "a"
  target_state  = "done"
}

adapter "noop" "default" {}

variable "w" {
  type    = object({ a = string, b = optional(number, 5) })
  default = { a = "x", c = 1 }
}

variable "nums" {
  type    = list(number)
  default = ["1", "2"]
}

data "internal" "d" {
  type  = list(number)
  value = ["1", "2"]
}

step "a" {
  target = adapter.noop.default
  outcome "success" {
    next = state.done
  }
}

output "w" { value = var.w }
output "nums" { value = var.nums }
output "eq" { value = var.nums[0] == 1 }
output "deq" { value = data.internal.d.value[0] == 1 }
output "typed" {
  type  = number
  value = "42"
}

state "done" {
  terminal = true
  success  = true
}
