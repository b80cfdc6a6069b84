step "compile" {
  target = adapter.noop.default
  outcome "success" { next = state.built }
}
state "built" { terminal = true }
