workflow {
  name          = "badflow"
  version       = "1"
  initial_state = "s"
  target_state  = "done"
}
adapter "shell" "local" {}
step "s" {
  target = adapter.shell.local
  input { command = "echo ${input.prompt}" 
  outcome "success" { next = state.done }
}
state "done" { terminal = true }
output "said" { value = "x" }
