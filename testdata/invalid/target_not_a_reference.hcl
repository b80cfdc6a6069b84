# target = adaptor.shell.default: "adaptor" is not a target kind (adapter, agent,
# subworkflow, channel).
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

adapter "shell" "default" {}

step "build" {
  target = adaptor.shell.default
  input { command = "make" }
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
