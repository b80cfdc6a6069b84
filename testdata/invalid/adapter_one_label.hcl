# adapter "shell" with one label: an adapter needs a type and a name.
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

adapter "shell" {
  config { shell = "/bin/bash" }
}

step "build" {
  target = adapter.shell.default
  input { command = "make" }
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
