# A wait produces no output: its outcome cannot write a data value.
workflow {
  name          = "demo"
  version       = "1"
  initial_state = "hold"
  target_state  = "done"
}

data "internal" "waited" {
  type  = bool
  value = false
}

wait "hold" {
  duration = "1s"
  outcome "elapsed" {
    next = state.done
    write {
      target = data.internal.waited.value
      value  = true
    }
  }
}

state "done" {
  terminal = true
  success  = true
}
