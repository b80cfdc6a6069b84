# The second declaration of step "build" (the first is in a.hcl).
step "build" {
  target = adapter.shell.default
  input { command = "make all" }
  outcome "success" { next = "done" }
}
