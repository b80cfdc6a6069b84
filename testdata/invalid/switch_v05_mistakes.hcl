# v0.5 switches as the Go tool's users write them (a trial of its language): a switch with
# only a default is valid (LANGUAGE-SPEC: match blocks, zero or more; it was refused for
# missing "arms"); next = step.<switch> is taken (its worked example 2 writes it; it was
# refused); the mistakes are named in the switch's words: a "case" block (the hint offered
# criteria's internal "arms" and "switch"), a match without next ("branch" … "arms"
# before), and state.<switch>.
workflow {
  name          = "t"
  version       = "1"
  initial_state = "a"
  target_state  = "done"
}
adapter "shell" "default" {}
step "a" {
  target = adapter.shell.default
  input { command = "echo hi" }
  outcome "success" { next = step.only_default }
  outcome "failure" { next = state.typo }
}
switch "only_default" {
  default { next = switch.typo }
}
switch "typo" {
  case {
    condition = true
    next      = state.done
  }
  match {
    condition = true
  }
  default { next = state.done }
}
state "done" { terminal = true }
