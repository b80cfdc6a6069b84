# An environment's variables reach every step's process in plain: a secret there is refused (use secret_input).
workflow {
  name          = "env"
  version       = "1"
  initial_state = "a"
  target_state  = "done"
}

variable "tok" {
  type   = string
  secret = true
}

environment "shell" "ci" {
  variables = { ENVTOK = var.tok, OTHER = "x-${upper(var.tok)}" }
}

adapter "shell" "default" {}

step "a" {
  target = adapter.shell.default
  input { command = "echo env=$ENVTOK other=$OTHER" }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.done }
}

output "sec" {
  value  = var.tok
  secret = true
}

state "done" {
  terminal = true
  success  = true
}
