# while = "yes": a string that is no bool validated, then failed at run time (ADR-0002,
# Semantics 3: a condition statically not a bool is a compile error; a trial of the Go
# tool's language).
workflow {
  name          = "t"
  version       = "1"
  initial_state = "a"
  target_state  = "done"
}
adapter "shell" "default" {}
step "a" {
  target = adapter.shell.default
  while  = "yes"
  input {
    command = "echo hi"
  }
  outcome "all_succeeded" { next = state.done }
  outcome "any_failed" { next = state.done }
}
state "done" { terminal = true }
