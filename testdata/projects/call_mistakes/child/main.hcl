workflow {
  name          = "child"
  version       = "1"
  initial_state = "s"
  target_state  = "done"
}
adapter "noop" "default" {}
step "s" {
  target = adapter.noop.default
  input { t = input.task }
  outcome "success" { next = state.done }
}
state "done" { terminal = true }
output "tag" { value = "t" }
