workflow "p" {
  version = "1"
  initial_state = "call"
  target_state = "done"
}
variable "pw" {
  type = string
  secret = true
}
subworkflow "m" { source = "./mod" }
adapter "shell" "default" {}
step "call" {
  target = subworkflow.m
  input { pw = var.pw }
  outcome "success" { next = "use" }
}
step "use" {
  target = adapter.shell.default
  input { command = "echo ${steps.call.plain} sec=${steps.call.sec_out}" }
  secret_input { S = steps.call.sec_out }
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
