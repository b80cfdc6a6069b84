# The child both expects adapter shell.default from its caller and declares it.
workflow {
  name          = "main"
  version       = "1"
  initial_state = "call"
  target_state  = "done"
}

adapter "shell" "default" {}

subworkflow "child" {
  source   = "./child"
  adapters = [adapter.shell.default]
}

step "call" {
  target = subworkflow.child
  outcome "success" { next = state.done }
  outcome "failure" { next = state.done }
}

state "done" { terminal = true }
