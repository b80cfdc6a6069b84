# steps.a.stdot of a shell step: its output keys are known (exit_code, stdout, stderr...), so
# the typo is refused at validate (it validated, then failed at run time: a trial of the Go
# tool's language); steps.a.outputs.stdout, the Go tool's older form, likewise.
workflow {
  name          = "t"
  version       = "1"
  initial_state = "a"
  target_state  = "done"
}

adapter "shell" "default" {}

step "a" {
  target = adapter.shell.default
  input { command = "echo hi" }
  outcome "success" { next = step.b }
}
step "b" {
  target = adapter.shell.default
  input { command = "echo ${steps.a.stdot} ${steps.a.outputs.stdout} ${steps.a.exit_code}" }
  outcome "success" { next = state.done }
}

state "done" {
  terminal = true
  success  = true
}
