# A plugin adapter that prints its secrets to stderr and crashes with one: criteria shows its stderr masked.
workflow {
  name          = "leak"
  version       = "1"
  initial_state = "a"
  target_state  = "done"
}

variable "tok" {
  type   = string
  secret = true
}

adapter "leaky" "default" {
  secrets { K = var.tok }
}

step "a" {
  target = adapter.leaky.default
  input { x = 1 }
  outcome "success" { next = step.b }
}

step "b" {
  target = adapter.leaky.default
  input { crash = true }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.done }
}

state "done" {
  terminal = true
  success  = true
}
