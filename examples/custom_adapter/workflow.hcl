# custom_adapter — an out-of-process adapter. `adapter "echo"` is not built in, so criteria runs
# the executable criteria-adapter-echo, looked up in $CRITERIA_PLUGINS, then in ./adapters/ next
# to this file (where the example one is), then on $PATH. It speaks NDJSON over stdio
# (engine/adapters/PROTOCOL.md): info, open_session, execute per step, close_session.
# One adapter process serves the whole session; the `for_each` step's items run through it.
workflow "custom_adapter" {
  version       = "1"
  initial_state = "greet"
  target_state  = "done"
}

variable "names" {
  type        = "list(string)"
  default     = ["Ada", "Grace", "Linus"]
  description = "Who the echo adapter greets, one execute call each."
}

adapter "echo" "default" {}

adapter "echo" "formal" {
  config {
    greeting = "Good evening"
  }
}

step "greet" {
  target   = adapter.echo.default
  for_each = var.names
  input = {
    name = each.value
  }
  outcome "all_succeeded" { next = "sign_off" }
  outcome "any_failed"    { next = "failed" }
}

step "sign_off" {
  target = adapter.echo.formal
  input {
    name    = "everyone"
    outcome = "signed"
  }
  outcome "signed"  { next = "done" }
  outcome "failure" { next = "failed" }
}

state "done" {
  terminal = true
}

state "failed" {
  terminal = true
  success  = false
}

output "farewell" {
  type  = "string"
  value = steps.sign_off.message
}
