# Saved on Windows: CRLF line endings and a UTF-8 BOM. The heredoc's lines must reach the shell without \r.
workflow {
  name          = "windows"
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

adapter "shell" "default" {}

step "build" {
  target = adapter.shell.default
  input {
    command = <<-EOT
      set -eu
      echo "built on $(uname -s)"
    EOT
  }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.failed }
}

state "done" {
  terminal = true
  success  = true
}

state "failed" {
  terminal = true
  success  = false
}
