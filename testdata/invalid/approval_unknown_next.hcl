# The approval's "rejected" outcome goes to "rejectd"; the state is "rejected".
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

step "build" {
  adapter = "noop"
  outcome "success" { next = "sign_off" }
}

approval "sign_off" {
  approvers = ["alice"]
  reason    = "release"
  outcome "approved" { next = "done" }
  outcome "rejected" { next = "rejectd" }
}

state "done" { terminal = true }
state "rejected" {
  terminal = true
  success  = false
}
