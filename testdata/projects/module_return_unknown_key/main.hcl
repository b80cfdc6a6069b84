workflow "main" {
  version = "1"
  initial_state = "call"
  target_state = "done"
}
adapter "shell" "default" {}
subworkflow "m" {
  source = "./mod"

}
step "call" {
  target = subworkflow.m
  outcome "success" { next = step.use }
}
step "use" {
  target = adapter.shell.default
  input { command = "echo ${steps.call.pkgg}" }
  outcome "success" { next = state.done }
}
state "done" { terminal = true }
