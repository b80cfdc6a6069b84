# A secret may reach a step only through secret_input or an adapter's secrets, and an output only when marked secret.
workflow {
  name          = "demo"
  version       = "1"
  initial_state = "use"
  target_state  = "done"
}

variable "token" {
  type   = string
  secret = true
}

adapter "shell" "default" {
  config {
    token = var.token
  }
}

step "use" {
  target = adapter.shell.default
  input { command = "curl -H 'Authorization: ${var.token}' example.org" }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.done }
}

output "token" {
  value = var.token
}

state "done" {
  terminal = true
  success  = true
}
