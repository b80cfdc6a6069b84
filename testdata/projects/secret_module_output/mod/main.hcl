workflow "m" {
  version = "1"
  initial_state = "done"
  target_state = "done"
}
variable "pw" {
  type = string
  secret = true
}
output "sec_out" {
  value = var.pw
  secret = true
}
output "plain" {
  value = "PLAIN"
}
state "done" { terminal = true }
