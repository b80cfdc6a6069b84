# A wait with both duration and signal: the duration bounds the signal wait (the Go tool refuses it; we warn).
workflow {
  name          = "demo"
  version       = "1"
  initial_state = "hold"
  target_state  = "done"
}

wait "hold" {
  duration = "30s"
  signal   = "go"
  outcome "received" { next = state.done }
}

state "done" {
  terminal = true
  success  = true
}
