# Crash-matrix reference for the v0.5 constructs: data values written by outcomes, a
# while loop whose items write the value its condition reads, and a switch that
# stores an output. Every shell step appends one line to var.log.
workflow {
  name          = "crash_v05"
  version       = "1"
  initial_state = "seed"
  target_state  = "done"
}

variable "log" {
  type = string
}

adapter "shell" "default" {}

data "internal" "left" {
  type  = number
  value = 0
}

step "seed" {
  target = adapter.shell.default
  input { command = "echo seed >> '${var.log}' && echo 3" }
  outcome "success" {
    next = step.drain
    write {
      target = data.internal.left.value
      value  = trimspace(step.output.stdout)
    }
  }
  outcome "failure" { next = state.failed }
}

step "drain" {
  target     = adapter.shell.default
  while      = data.internal.left.value > 0
  max_visits = 10
  input { command = "echo drain-${while.index} >> '${var.log}'" }
  outcome "success" {
    next = continue
    write {
      target = data.internal.left.value
      value  = data.internal.left.value - 1
    }
  }
  outcome "all_succeeded" { next = switch.route }
  outcome "any_failed"    { next = state.failed }
}

switch "route" {
  match {
    condition = data.internal.left.value == 0
    next      = step.finish
    output    = { label = "drained" }
  }
  default {
    next   = state.failed
    output = { label = "left-over" }
  }
}

step "finish" {
  target = adapter.shell.default
  input { command = "echo finish-${steps.route.label} >> '${var.log}'" }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.failed }
}

output "left" {
  value = data.internal.left.value
}

state "done" {
  terminal = true
  success  = true
}

state "failed" {
  terminal = true
  success  = false
}
