# A body opening with a switch starts at its first step all the same: the hints say so and how
# to start at the switch (found by a new-user trial: it was told only that a step was unreached).
workflow "sw" {
  version = "1"
  initial_state = "fan"
  target_state = "done"
}
variable "mode" {
  type = "string"
  default = "sec"
}
adapter "noop" "default" {}
step "fan" {
  parallel = ["a", "b"]
  workflow {
    switch "pick" {
      match {
        condition = var.mode == "sec"
        next = "sec"
      }
      default { next = "maint" }
    }
    step "sec" {
      target = adapter.noop.default
      outcome "success" { next = "_continue" }
    }
    step "maint" {
      target = adapter.noop.default
      outcome "success" { next = "_continue" }
    }
  }
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "done" }
}
state "done" { terminal = true }
