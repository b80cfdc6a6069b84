# A step's values written as config, as an adapter's are (the Go tool's docs promise a
# "use input { } block" diagnostic; found by a trial of them: the step's field list only).
workflow "t" {
  version       = "1"
  initial_state = "s"
  target_state  = "done"
}
adapter "shell" "default" {}
step "s" {
  target = adapter.shell.default
  config = { command = "echo hi" }
  input { command = "echo hi" }
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
