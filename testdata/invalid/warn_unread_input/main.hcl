# A step passes a flow keys it neither reads nor declares: a leftover and a typo (warnings, with did-you-mean).
workflow {
  name = "fa"
  version = "1"
  initial_state = "a"
  target_state = "done"
  use = ["./flows/f.hcl"]
}
step "a" {
  target = agent.f
  input {
    task = "t"
    mode = "m"
    bogus = 1
    tsk = "typo"
  }
  outcome "success" { next = state.done }
  outcome "failure" { next = state.done }
}
state "done" { terminal = true }
output "o" { value = steps.a.said }
