# An adapter type neither built in nor installed: it validates; apply refuses it with its position.
workflow {
  name          = "unknown"
  version       = "1"
  initial_state = "ask"
  target_state  = "done"
}

adapter "nosuchthing" "default" {}

step "ask" {
  target = adapter.nosuchthing.default
  outcome "success" { next = state.done }
}

state "done" {
  terminal = true
  success  = true
}
