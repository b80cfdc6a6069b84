# An outcome misspells transition_to as tansition_to (unknown_field, did-you-mean).
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"

  step "build" {
    adapter = "noop"
    outcome "success" { tansition_to = "done" }
  }

  state "done" { terminal = true }
}
