# A step's input reads its own output: not there on its first visit (found by a new-user trial: the run failed with "no attribute named build"). A read behind a condition or inside try() is not flagged.
workflow "w" {
  version = "1"
  initial_state = "build"
  target_state = "done"
}
adapter "shell" "default" {}
data "internal" "n" {
  type = number
  value = 0
}
step "build" {
  target = adapter.shell.default
  max_visits = 3
  input { command = "echo ${steps.build.stdout}" }
  outcome "success" { next = "again" }
}
step "again" {
  target = adapter.shell.default
  max_visits = 3
  input {
    command = "echo ${data.internal.n.value > 0 ? steps.again.stdout : "first"}"
    guarded = "echo ${try(steps.again.stdout, "first")}"
  }
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
