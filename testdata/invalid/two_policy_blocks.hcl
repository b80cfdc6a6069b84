# Two policy blocks: policy may appear once.
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

policy {
  max_total_steps = 10
}

policy {
  max_step_retries = 2
}

step "build" {
  adapter = "noop"
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
