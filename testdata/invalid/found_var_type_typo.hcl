workflow "par" {
  version = "1"
  initial_state = "fan"
  target_state = "done"
}
variable "items" {
  type = "list(strng)"
  default = ["a", "b", "c", "d"]
}
adapter "shell" "sh" {}
step "fan" {
  target = adapter.shell.sh
  parallel = var.items
  parallel_max = 2
  input = {
    command = "echo start-${each.value} >> /dev/null; true; echo end-${each.value} >> /dev/null"
  }
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "bad" }
}
state "done" { terminal = true }
state "bad" {
  terminal = true
  success = false
}
