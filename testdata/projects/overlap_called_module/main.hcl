# Found by a new-user trial: a body file beside the called module's main.hcl gave four errors, a caller's 'does not expect' first; module_overlap alone is the cause.
workflow "m" {
  version = "1"
  initial_state = "s"
  target_state = "done"
}
adapter "shell" "default" {}
subworkflow "child" {
  source = "./mod"
  adapters = [adapter.shell.default]
}
step "s" {
  target = subworkflow.child
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
