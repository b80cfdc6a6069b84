# A write names a data value that is not declared ("counter" is).
workflow {
  name          = "demo"
  version       = "1"
  initial_state = "count"
  target_state  = "done"
}

adapter "noop" "default" {}

data "internal" "counter" {
  type  = number
  value = 0
}

step "count" {
  target = adapter.noop.default
  outcome "success" {
    next = state.done
    write {
      target = data.internal.countr.value
      value  = data.internal.counter.value + 1
    }
  }
}

state "done" {
  terminal = true
  success  = true
}
