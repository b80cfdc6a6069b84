# The word "cafÃ©" below is written in latin-1 (a lone 0xE9 byte), not UTF-8.
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

step "build" {
  adapter = "noop"
  input { label = "café" }
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
