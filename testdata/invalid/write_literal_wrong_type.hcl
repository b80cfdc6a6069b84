workflow "d" {
  version       = "1"
  initial_state = "a"
  target_state  = "done"
}
adapter "shell" "default" {}
data "internal" "count" {
  type  = number
  value = 0
}
step "a" {
  target = adapter.shell.default
  input { command = "echo hi" }
  outcome "success" {
    next = "done"
    write {
      target = data.internal.count.value
      value  = "many"
    }
  }
}
state "done" { terminal = true }
