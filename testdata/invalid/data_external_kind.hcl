# Only data "internal" values exist; other kinds are refused.
workflow {
  name          = "demo"
  version       = "1"
  initial_state = "count"
  target_state  = "done"
}

adapter "noop" "default" {}

data "vault" "token" {
  type = string
}

step "count" {
  target = adapter.noop.default
  outcome "success" { next = state.done }
}

state "done" {
  terminal = true
  success  = true
}
