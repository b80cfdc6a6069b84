# A step and a state are both named "deploy" (they share one namespace).
workflow "demo" {
  version       = "1"
  initial_state = "deploy"
  target_state  = "done"
}

step "deploy" {
  adapter = "noop"
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
state "deploy" { terminal = true }
