# Locals a -> b -> c -> a: none of them can be computed.
workflow {
  name          = "demo"
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

locals {
  a = "${local.b}-a"
  b = "${local.c}-b"
  c = "${local.a}-c"
  d = local.d
}

adapter "shell" "default" {}

step "build" {
  target = adapter.shell.default
  input { command = "echo ${local.a} ${local.d}" }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.done }
}

state "done" {
  terminal = true
  success  = true
}
