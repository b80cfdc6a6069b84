# After all items, steps.build is a list: shared_writes cannot read one result from it.
workflow {
  name          = "demo"
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

adapter "shell" "default" {}

shared_variable "last" {
  type  = string
  value = ""
}

step "build" {
  target   = adapter.shell.default
  for_each = ["a", "b"]
  input { command = "echo ${each.value}" }
  outcome "all_succeeded" {
    next          = state.done
    shared_writes = { last = step.output.stdout }
  }
  outcome "any_failed" { next = state.done }
}

state "done" {
  terminal = true
  success  = true
}
