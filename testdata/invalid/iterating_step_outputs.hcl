# steps.<iterating step>.outputs, as the Go tool's docs read its items: told that the step is the
# list itself (found by a trial of its docs: the hint offered [0].outputs).
workflow "t" {
  version = "1"
  initial_state = "fetch_all"
  target_state = "done"
}
adapter "shell" "default" {}
step "fetch_all" {
  target = adapter.shell.default
  for_each = ["a", "b"]
  input { command = "echo ${each.value}" }
  outcome "all_succeeded" { next = "count" }
  outcome "any_failed" { next = "done" }
}
step "count" {
  target = adapter.shell.default
  input { command = "echo ${length(steps.fetch_all.outputs)}" }
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
