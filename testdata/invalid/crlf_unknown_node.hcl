# CRLF line endings; the outcome goes to "dnoe" (a typo of "done").
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

step "build" {
  adapter = "noop"
  outcome "success" { next = "dnoe" }
}

state "done" { terminal = true }
