# Seed 001, Option A: the child expects adapter copilot.reviewer and agent executor.
# The caller passes an adapter the child does not expect (copilot.reviwer, a typo),
# one the caller does not declare (shell.ci), and not the agent it expects.
workflow {
  name          = "main"
  version       = "1"
  initial_state = "call"
  target_state  = "done"
}

adapter "copilot" "reviewer" {}
adapter "copilot" "reviwer" {}

subworkflow "child" {
  source   = "./child"
  adapters = [adapter.copilot.reviwer, adapter.shell.ci]
}

step "call" {
  target = subworkflow.child
  outcome "success" { next = state.done }
  outcome "failure" { next = state.done }
}

state "done" { terminal = true }
