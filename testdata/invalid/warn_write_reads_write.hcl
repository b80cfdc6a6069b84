# Both writes read data values the same outcome writes: they see the step-entry values (a warning, not an error).
workflow {
  name          = "demo"
  version       = "1"
  initial_state = "swap"
  target_state  = "done"
}

adapter "noop" "default" {}

data "internal" "a" {
  type  = string
  value = "A"
}

data "internal" "b" {
  type  = string
  value = "B"
}

step "swap" {
  target = adapter.noop.default
  outcome "success" {
    next = state.done
    write {
      target = data.internal.a.value
      value  = data.internal.b.value
    }
    write {
      target = data.internal.b.value
      value  = data.internal.a.value
    }
  }
}

state "done" {
  terminal = true
  success  = true
}
