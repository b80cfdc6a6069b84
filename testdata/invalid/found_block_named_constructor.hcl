workflow "w" {
  version = "1"
  initial_state = "a"
  target_state = "done"
}
constructor "x" {
  a = 1
}
step "a" {
  adapter = "noop"
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
