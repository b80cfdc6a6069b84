workflow "outer" {
  version       = "1"
  initial_state = "loop"
  target_state  = "done"
}

step "loop" {
  workflow {
    wait "settle" {
      duration = "1s"
      outcome "elapsed" { next = "return" }
    }
  }
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
