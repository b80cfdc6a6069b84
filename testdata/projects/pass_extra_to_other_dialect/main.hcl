# An HCL caller passes its YAML and JSON modules an adapter they do not expect: the
# hint tells how to add it to each module's expects, in that module's own syntax.
workflow "release" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

adapter "shell" "default" {}
adapter "shell" "slow" {}

subworkflow "build" {
  source   = "./modules/build.yaml"
  adapters = [adapter.shell.default, adapter.shell.slow]
}

subworkflow "check" {
  source   = "./modules/check.json"
  adapters = [adapter.shell.default, adapter.shell.slow]
}

step "build" {
  target = subworkflow.build
  outcome "success" { next = step.check }
}

step "check" {
  target = subworkflow.check
  outcome "success" { next = state.done }
}

state "done" { terminal = true }
