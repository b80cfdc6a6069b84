# An outcome writes shared variable "attemps"; the declared one is "attempts".
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

shared_variable "attempts" {
  type  = "number"
  value = 0
}

step "build" {
  adapter = "noop"
  outcome "success" {
    next          = "done"
    shared_writes = { attemps = 1 }
  }
}

state "done" { terminal = true }
