step "n" {
  adapter = "noop"
  outcome "success" { transition_to = "_continue" }
}
