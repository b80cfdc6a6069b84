# A wait with no outcome and no next: a run could never leave it.
workflow {
  name          = "demo"
  version       = "1"
  initial_state = "hold"
  target_state  = "done"
}

wait "hold" {
  signal = "go"
}

state "done" {
  terminal = true
  success  = true
}
