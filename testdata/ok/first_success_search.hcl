# Loops that stop at the first success on purpose draw no loop_exit_on_success warning
# (a new-user trial: a mirror search whose failure goes on to the next item, and a while
# loop polling until it succeeds, both warned).
workflow {
  name          = "it"
  version       = "1"
  initial_state = "first"
  target_state  = "done"
}
adapter "shell" "default" {}
step "first" {
  target   = adapter.shell.default
  for_each = ["mirror1", "mirror2"]
  input { command = "echo try ${each.value}; exit 1" }
  outcome "success"       { next = state.done }
  outcome "failure"       { next = continue }
  outcome "all_succeeded" { next = step.poll }
  outcome "any_failed"    { next = step.poll }
}
step "poll" {
  target     = adapter.shell.default
  while      = true
  max_visits = 5
  input { command = "test ${while.index} -ge 2" }
  outcome "success"       { next = state.done }
  outcome "failure"       { next = continue }
  outcome "all_succeeded" { next = state.failed }
  outcome "any_failed"    { next = state.failed }
}
state "done" {
  terminal = true
  success  = true
}
state "failed" {
  terminal = true
  success  = false
}
