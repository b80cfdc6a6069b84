# count = "three": a count is a whole number (or an expression), not a word.
workflow "demo" {
  version       = "1"
  initial_state = "loop"
  target_state  = "done"
}

step "loop" {
  adapter = "noop"
  count   = "three"
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed"    { next = "done" }
}

state "done" { terminal = true }
