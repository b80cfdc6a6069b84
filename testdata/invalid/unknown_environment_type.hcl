# Environment types are shell, sandbox, container and remote: "shel" is a typo.
workflow {
  name          = "demo"
  version       = "1"
  initial_state = "build"
  target_state  = "done"
  environment   = shel.ci
}

environment "shel" "ci" {
  variables = { CI = "true" }
}

adapter "shell" "default" {}

step "build" {
  target = adapter.shell.default
  input { command = "make" }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.done }
}

state "done" {
  terminal = true
  success  = true
}
