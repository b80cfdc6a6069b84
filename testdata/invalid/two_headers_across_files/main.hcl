# A directory workflow whose two files both carry a workflow header (the second is
# in other.hcl).
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

step "build" {
  adapter = "noop"
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
