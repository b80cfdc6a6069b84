# file() of a literal path outside the workflow directory, and of a missing file.
workflow "w" {
  version       = "1"
  initial_state = "s"
  target_state  = "done"
}
step "s" {
  adapter = "noop"
  input {
    secret = file("../../../etc/passwd")
    notes  = file("missing.txt")
  }
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
