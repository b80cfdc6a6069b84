workflow "p" {
  version = "1"
  initial_state = "call"
  target_state = "done"
}
adapter "shell" "default" {}
subworkflow "kid" {
  source = "./child"
}
step "call" {
  subworkflow = subworkflow.kid
  outcome "success" { next = "done" }
  outcome "failure" { next = "failed" }
}
state "done" { terminal = true }
state "failed" {
  terminal = true
  success = false
}
