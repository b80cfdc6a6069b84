# data "internal" values: written by outcomes, every write reading the step-entry snapshot.
workflow {
  name          = "data-write"
  version       = "1"
  initial_state = "bump"
  target_state  = "done"
}

adapter "shell" "default" {}

data "internal" "counter" {
  type  = number
  value = 1
}

data "internal" "seen" {
  type = string
}

step "bump" {
  target = adapter.shell.default
  input { command = "echo 41" }
  outcome "success" {
    next = step.show
    write {
      target = data.internal.counter.value
      value  = data.internal.counter.value + trimspace(step.output.stdout)
    }
    write {
      target = data.internal.seen.value
      value  = "counter was ${data.internal.counter.value}"
    }
  }
  outcome "failure" { next = state.failed }
}

step "show" {
  target = adapter.shell.default
  input { command = "echo '${data.internal.counter.value} / ${data.internal.seen.value}'" }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.failed }
}

output "counter" {
  type  = number
  value = data.internal.counter.value
}

state "done" {
  terminal = true
  success  = true
}

state "failed" {
  terminal = true
  success  = false
}
