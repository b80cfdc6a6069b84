# A secret variable with a default holds the secret in the workflow's source.
workflow {
  name          = "demo"
  version       = "1"
  initial_state = "use"
  target_state  = "done"
}

variable "token" {
  type      = string
  sensitive = true
  default   = "not-really-secret"
}

adapter "shell" "default" {}

step "use" {
  target = adapter.shell.default
  input { command = "test -n \"$TOKEN\"" }
  secret_input {
    TOKEN = var.token
  }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.done }
}

state "done" {
  terminal = true
  success  = true
}
