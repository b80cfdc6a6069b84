# input binds the callee's variables: an unknown key (with a did-you-mean), a literal
# of the wrong type, and a required variable left unbound each name both positions.
workflow {
  name          = "main"
  version       = "1"
  initial_state = "call"
  target_state  = "done"
}

subworkflow "child" {
  source = "./child"
  input = {
    iterms  = ["a"]
    retries = "many"
  }
}

step "call" {
  target = subworkflow.child
  outcome "success" { next = state.done }
  outcome "failure" { next = state.done }
}

state "done" { terminal = true }
