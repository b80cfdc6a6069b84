# Step "build" says nothing about what it runs (no target, adapter, agent or body).
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

step "build" {
  input { command = "make" }
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
