workflow {
  name          = "child"
  version       = "1"
  initial_state = "work"
  target_state  = "done"
}

adapter "noop" "default" {}

output "result" {
  type  = string
  value = "ok"
}

step "work" {
  target = adapter.noop.default
  outcome "success" { next = state.done }
}

state "done" { terminal = true }
