# The same flow listed twice in `use`, and an empty item: one error each, said as the
# list's items (found by a new-user trial: ajv's "items ## 1 and 0 are identical" with a
# duplicate_name advising another name, and `"0" must not be empty`).
workflow {
  name = "dup"
  version = "1"
  initial_state = "done"
  target_state = "done"
  use = ["./flows/reviewer.hcl", "./flows/reviewer.hcl", ""]
}
state "done" { terminal = true }
