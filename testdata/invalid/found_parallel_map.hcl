# parallel over a map: the Go tool rejects it at compile time (workflow.md: "Object/map
# syntax is rejected at compile time; use for_each for key/value iteration").
workflow {
  name          = "x"
  version       = "1"
  initial_state = "fan"
  target_state  = "done"
}
state "done" {
  terminal = true
}
adapter "shell" "default" {}
step "fan" {
  target   = adapter.shell.default
  parallel = { x = "a" }
  input { command = "echo ${each.value}" }
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "done" }
}
