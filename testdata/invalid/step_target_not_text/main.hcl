workflow "w" {
  version       = "1"
  initial_state = "a"
  target_state  = "done"
}

adapter "shell" "default" {}

step "a" {
  target = 5
  input { command = "echo hi" }
  outcome "success" { next = "b" }
}

step "b" {
  adapter = false
  input { command = "echo hi" }
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
