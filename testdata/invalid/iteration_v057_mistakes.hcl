# Mistakes a user of the Go tool's v0.5.7 makes (a trial of its language): count = -1 is
# negative (it was "not a whole number"); parallel_max on a for_each step (the hint said
# "add parallel = true", which is refused in turn); an undeclared variable (the hint wrote
# the quoted type of older eras).
workflow {
  name          = "t"
  version       = "1"
  initial_state = "a"
  target_state  = "done"
}
adapter "shell" "default" {}
step "a" {
  target = adapter.shell.default
  count  = -1
  input { command = "echo ${var.nope}" }
  outcome "all_succeeded" { next = step.b }
  outcome "any_failed" { next = step.b }
}
step "b" {
  target       = adapter.shell.default
  for_each     = ["x", "y"]
  parallel_max = 2
  input { command = "echo ${each.value}" }
  outcome "all_succeeded" { next = state.done }
  outcome "any_failed" { next = state.done }
}
state "done" { terminal = true }
