# An agent nobody uses: a warning only (unused_declaration), the workflow is valid.
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

agent "reviewer" {
  adapter = "copilot"
}

step "build" {
  adapter = "noop"
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
