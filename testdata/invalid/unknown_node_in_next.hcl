# outcome "failure" goes to "faild"; the state is "failed".
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

step "build" {
  adapter = "noop"
  outcome "success" { next = "done" }
  outcome "failure" { next = "faild" }
}

state "done" { terminal = true }
state "failed" {
  terminal = true
  success  = false
}
