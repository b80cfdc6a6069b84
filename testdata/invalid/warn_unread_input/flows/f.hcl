workflow {
  name = "f"
  version = "1"
  initial_state = "s"
  target_state = "done"
}
variable "mode" { type = string }
adapter "shell" "own" {}
step "s" {
  target = adapter.shell.own
  input { command = "echo ${input.task} ${var.mode}" }
  outcome "success" { next = state.done }
}
state "done" { terminal = true }
output "said" { value = trimspace(steps.s.stdout) }
