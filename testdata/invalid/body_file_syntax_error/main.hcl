workflow "outer" {
  version       = "1"
  initial_state = "loop"
  target_state  = "done"
}
adapter "shell" "default" {}
step "loop" {
  workflow_file = "bodies/body.hcl"
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
