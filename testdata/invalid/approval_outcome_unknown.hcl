# An approval outcome no decision takes and near none: said at it, beside the missing decision.
workflow {
  name          = "t"
  version       = "1"
  initial_state = "gate"
  target_state  = "done"
}
approval "gate" {
  approvers = ["ops"]
  outcome "approved" { next = "done" }
  outcome "denied" { next = "done" }
}
state "done" { terminal = true }
