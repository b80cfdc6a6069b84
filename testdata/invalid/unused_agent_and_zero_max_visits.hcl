# Agent "reviewer" is declared but never used (an unused_declaration warning);
# step "build" has max_visits = 0, below the minimum of 1 (the error).
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
  max_visits = 0
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
