step "inner" {
  target = adapter.shell.default
  input { command = "echo hi" 
  outcome "success" { next = "return" }
}
