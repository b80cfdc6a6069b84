workflow {
  name = "reviewer"
  initial_state = "look"
  target_state = "done"

step "look" {
