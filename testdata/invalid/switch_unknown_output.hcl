# The switch's arms store "replicas"; "replica" is a typo.
workflow {
  name          = "demo"
  version       = "1"
  initial_state = "route"
  target_state  = "done"
}

adapter "shell" "default" {}

switch "route" {
  match {
    condition = true
    next      = step.deploy
    output    = { replicas = 2 }
  }
  default { next = state.done }
}

step "deploy" {
  target = adapter.shell.default
  input { command = "echo ${steps.route.replica}" }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.done }
}

state "done" {
  terminal = true
  success  = true
}
