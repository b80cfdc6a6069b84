# Each body file uses the next twice: 2^12 copies. Refused quickly (expansion_limit), not after
# exhausting memory (found by a new-user trial: 19 levels ran out of heap).
workflow {
  name          = "wfx"
  version       = "1"
  initial_state = "go"
  target_state  = "done"
  policy {
    max_depth = 64
  }
}
adapter "noop" "x" {}
step "go" {
  workflow_file = "./b/b0.hcl"
  outcome "success" { next = state.done }
}
state "done" { terminal = true }
