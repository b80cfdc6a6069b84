# A duration past Go's range (about 292 years) has no end time a clock can show: found by
# a trial, where apply crashed on a signal wait with this timeout.
workflow {
  name          = "far"
  version       = "1"
  initial_state = "ready"
  target_state  = "done"
}

wait "ready" {
  signal  = "go"
  timeout = "9999999999h"
  outcome "received" { next = state.done }
  outcome "timeout"  { next = state.done }
}

wait "later" {
  duration = "106751d23h47m16s854ms"
  next     = state.done
}

state "done" { terminal = true }
