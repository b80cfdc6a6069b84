# A directory workflow: a.hcl and b.hcl both declare step "build" (duplicate_name in b.hcl).
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

adapter "shell" "default" {}

step "build" {
  target = adapter.shell.default
  input { command = "make" }
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
