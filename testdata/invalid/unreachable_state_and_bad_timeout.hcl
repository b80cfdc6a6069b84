# State "cancelled" is never reached (a warning), and the step's timeout
# "5 minutes" is not a duration (the error that makes this case invalid).
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

step "build" {
  adapter = "noop"
  timeout = "5 minutes"
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
state "cancelled" {
  terminal = true
  success  = false
}
