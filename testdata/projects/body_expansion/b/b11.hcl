step "leaf" {
  target = adapter.noop.x
  outcome "success" { next = state.fin }
}
state "fin" { terminal = true }
