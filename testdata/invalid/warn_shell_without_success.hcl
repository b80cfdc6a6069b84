# A shell step that routes only failure and a marker outcome: a command that exits 0 without
# a CRITERIA_OUTCOME line would fail the run (unknown_outcome).
workflow {
  name          = "w"
  version       = "1"
  initial_state = "triage"
  target_state  = "done"
}

adapter "shell" "default" {}

step "triage" {
  target = adapter.shell.default
  input { command = "./triage.sh" }
  outcome "needs_review" { next = state.done }
  outcome "failure"      { next = state.done }
}

state "done" {
  terminal = true
}
