# Secrets reach the step's process as environment variables and are masked in everything a run records or shows.
workflow {
  name          = "secrets"
  version       = "1"
  initial_state = "use"
  target_state  = "done"
}

variable "token" {
  type   = string
  secret = true
}

variable "pin" {
  type      = number
  sensitive = true
}

variable "region" {
  type    = string
  default = "eu"
}

adapter "shell" "default" {
  secrets {
    API_KEY = var.token
  }
}

step "use" {
  target = adapter.shell.default
  input { command = "echo key=$API_KEY tok=$TOKEN pin=$PIN region=${var.region}; echo $TOKEN >&2; test \"$TOKEN\" = \"$API_KEY\" && test -n \"$PIN\"" }
  secret_input {
    TOKEN = var.token
    PIN   = var.pin
  }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.failed }
}

output "masked" {
  value  = var.token
  secret = true
}

state "done" {
  terminal = true
  success  = true
}

state "failed" {
  terminal = true
  success  = false
}
