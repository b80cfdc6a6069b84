# The only step block has no name label: step { ... }.
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

step {
  adapter = "noop"
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
