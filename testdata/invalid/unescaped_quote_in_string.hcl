# Found by a new-user trial: a " meant inside a string ended it; the hint spoke of "${...}".
workflow {
  name = "x"
  initial_state = "a"
  target_state = "a"
}
adapter "shell" "default" {}
step "a" {
  target = adapter.shell.default
  input { command = "printf "\\033]0;PWNED" >&2" }
  outcome "success" { next = "a" }
}
