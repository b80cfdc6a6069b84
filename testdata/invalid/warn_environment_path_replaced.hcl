# An environment's PATH without the system's directories replaces the one its steps find
# sh, ls, git in (the Go tool kept its own PATH and warned; found by a trial of its docs:
# every command was "not found", unsaid). One that keeps /usr/bin, or is known only at
# run time, is not warned of.
workflow "t" {
  version       = "1"
  initial_state = "s"
  target_state  = "done"
}
variable "tools" { default = "/opt/tools/bin" }
environment "shell" "broken" {
  variables = { PATH = "/nope" }
}
environment "shell" "kept" {
  variables = { PATH = "/opt/tools/bin:/usr/bin:/bin" }
}
environment "shell" "computed" {
  variables = { PATH = "${var.tools}" }
}
adapter "shell" "default" {}
step "s" {
  target      = adapter.shell.default
  environment = shell.broken
  input { command = "ls /" }
  outcome "success" { next = "k" }
}
step "k" {
  target      = adapter.shell.default
  environment = shell.kept
  input { command = "ls /" }
  outcome "success" { next = "c" }
}
step "c" {
  target      = adapter.shell.default
  environment = shell.computed
  input { command = "ls /" }
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
