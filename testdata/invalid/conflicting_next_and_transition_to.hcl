# An outcome sets both next and its older spelling transition_to.
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

step "build" {
  adapter = "noop"
  outcome "success" {
    next          = "done"
    transition_to = "done"
  }
}

state "done" { terminal = true }
