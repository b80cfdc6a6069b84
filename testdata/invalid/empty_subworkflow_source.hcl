# An empty source: said plainly, not in the schema library's words ("must NOT have fewer than 1 characters").
workflow {
  name          = "w"
  version       = "1"
  initial_state = "s"
  target_state  = "done"
}
subworkflow "m" {
  source = ""
}
step "s" {
  target = subworkflow.m
  outcome "success" { next = state.done }
}
state "done" { terminal = true }
