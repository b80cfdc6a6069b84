# target_state names a step ("publish"), not a state.
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "publish"
}

step "build" {
  adapter = "noop"
  outcome "success" { next = "publish" }
}

step "publish" {
  adapter = "noop"
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
