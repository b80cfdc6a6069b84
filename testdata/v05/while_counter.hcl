# while: re-evaluated before each iteration against the data values the items wrote.
workflow {
  name          = "while-counter"
  version       = "1"
  initial_state = "drain"
  target_state  = "done"
}

adapter "shell" "default" {}

data "internal" "left" {
  type  = number
  value = 3
}

step "drain" {
  target     = adapter.shell.default
  while      = data.internal.left.value > 0
  max_visits = 10
  input { command = "echo item ${while.index} first=${while.first} prev=${while._prev == null ? "none" : trimspace(while._prev.stdout)}" }
  outcome "success" {
    next = continue
    write {
      target = data.internal.left.value
      value  = data.internal.left.value - 1
    }
  }
  outcome "all_succeeded" { next = state.done }
  outcome "any_failed"    { next = state.failed }
}

output "left" {
  value = data.internal.left.value
}

output "items" {
  value = [for r in steps.drain : trimspace(r.stdout)]
}

state "done" {
  terminal = true
  success  = true
}

state "failed" {
  terminal = true
  success  = false
}
