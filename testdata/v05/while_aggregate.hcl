# The aggregate outcome of a while step reads the data values its items wrote.
workflow {
  name          = "drain"
  version       = "1"
  initial_state = "drain"
  target_state  = "done"
}

adapter "shell" "default" {}

data "internal" "left" {
  type  = number
  value = 3
}

data "internal" "seen" {
  type  = number
  value = -1
}

step "drain" {
  target     = adapter.shell.default
  while      = data.internal.left.value > 0
  max_visits = 10
  input { command = "echo item ${while.index}" }
  outcome "success" {
    next = continue
    write {
      target = data.internal.left.value
      value  = data.internal.left.value - 1
    }
  }
  outcome "all_succeeded" {
    next   = step.after
    output = { left_at_aggregate = data.internal.left.value }
    write {
      target = data.internal.seen.value
      value  = data.internal.left.value
    }
  }
  outcome "any_failed"    { next = state.done }
}

step "after" {
  target = adapter.shell.default
  input { command = "echo left=${data.internal.left.value} seen=${data.internal.seen.value}" }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.done }
}

output "left" {
  value = data.internal.left.value
}

output "seen" {
  value = data.internal.seen.value
}

state "done" {
  terminal = true
  success  = true
}
