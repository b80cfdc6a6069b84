# A flow of the use list that does not parse: its syntax error and use_invalid alone, not
# "unknown agent" for each agent it may name, with a did-you-mean toward its file name
# (found by a trial of this session's checks).
workflow {
  name          = "t5e"
  version       = "1"
  initial_state = "r"
  target_state  = "done"
  use           = ["./fl/bad.hcl"]
}
adapter "shell" "default" {}
step "r" {
  target   = agent.badflow
  for_each = ["a"]
  input { prompt = each.value }
  outcome "success" { next = continue }
  outcome "all_succeeded" { next = step.u }
  outcome "any_failed" { next = state.done }
}
step "u" {
  target = adapter.shell.default
  input { command = "echo ${jsonencode([for x in steps.r : x.said])} ${steps.r[0].said}" }
  outcome "success" { next = step.g }
}
step "g" {
  target = agent.badflw
  input { prompt = "x" }
  outcome "success" { next = state.done }
}
state "done" { terminal = true }
