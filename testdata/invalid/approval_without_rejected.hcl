# An approval routes both decisions; this one forgets "rejected".
workflow {
  name          = "demo"
  version       = "1"
  initial_state = "gate"
  target_state  = "done"
}

approval "gate" {
  approvers = ["ops"]
  outcome "approved" { next = state.done }
}

state "done" {
  terminal = true
  success  = true
}
