# try() and can() catch what fails while a run evaluates, never what validate finds:
# an unknown step, a wrong argument count; a try of which every argument always fails.
workflow {
  name          = "try_static"
  version       = "1"
  initial_state = "report"
  target_state  = "done"
}

adapter "shell" "default" {}

step "report" {
  target = adapter.shell.default
  input {
    command = "echo ${try(steps.revue.stdout, "")} ${can()}"
    other   = try("abc"[0])
  }
  outcome "success" { next = state.done }
}

state "done" {
  terminal = true
}
