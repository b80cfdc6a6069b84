# Found by a new-user trial: a read of a key only one of the called module's returns sets validated, and the run failed with "did you mean kb".
workflow "main" {
  version       = "1"
  initial_state = "call"
  target_state  = "done"
}
subworkflow "m" {
  source = "./mod"
  input  = { v = "b" }
}
adapter "shell" "default" {}
step "call" {
  target = subworkflow.m
  outcome "success" { next = "use" }
}
step "use" {
  target = adapter.shell.default
  input { command = "echo ${steps.call.ka} ${steps.call.both} ${try(steps.call.kb, "")}" }
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
