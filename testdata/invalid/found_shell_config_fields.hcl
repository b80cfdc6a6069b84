workflow {
  name          = "cfg"
  version       = "1"
  initial_state = "ci"
  target_state  = "done"
}

adapter "shell" "default" {
  config {
    timeout = 5
    timout  = "1s"
    max_output_bytes = "lots"
  }
}

step "ci" {
  target = adapter.shell.default
  input { command = "sleep 0.5; echo ok" }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.done }
}

state "done" {
  terminal = true
}
