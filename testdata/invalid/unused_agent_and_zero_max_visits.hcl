# Agent "reviewer" is declared but never used (an unused_declaration warning);
# step "build" has max_visits = -1, below the minimum of 0 (0 is unlimited; the error).
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

agent "reviewer" {
  adapter = "copilot"
}

step "build" {
  adapter    = "noop"
  max_visits = -1
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
