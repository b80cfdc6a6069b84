# A misspelt field of an environment: the hint names "variables", the field's own name
# (found by a new-user trial: it offered "variable", itself refused).
workflow {
  name          = "x"
  version       = "1"
  initial_state = "done"
  target_state  = "done"
}
state "done" {
  terminal = true
}
environment "shell" "ci" {
  varz = { A = "1" }
}
