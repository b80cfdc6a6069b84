workflow "e" {
  version       = "1"
  initial_state = "s"
  target_state  = "done"
  environment   = shell.a
}
environment "shell" "a" {
  variables = {
    LVL  = "debug"
    LIST = ["x", "y"]
    OBJ  = { k = "v" }
    B    = true
    N    = 3
  }
}
adapter "shell" "default" {}
step "s" {
  target = adapter.shell.default
  input { command = "echo $LVL" }
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
