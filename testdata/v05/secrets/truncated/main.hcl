# An output cut through a secret (max_output_bytes keeps the tail) masks the piece that is left.
workflow {
  name          = "trunc"
  version       = "1"
  initial_state = "s"
  target_state  = "done"
}

variable "tok" {
  type   = string
  secret = true
}

adapter "shell" "default" {
  config {
    max_output_bytes = 12
  }
}

step "s" {
  target = adapter.shell.default
  input { command = "printf 'x%s' \"$T\"" }
  secret_input { T = var.tok }
  outcome "success" {
    next   = state.done
    output = jsondecode("{\"k\": 1}")
  }
  outcome "failure" { next = state.done }
}

state "done" {
  terminal = true
  success  = true
}
