# A second workflow header in the same directory (the first is in main.hcl).
workflow "demo" {
  version       = "2"
  initial_state = "build"
  target_state  = "done"
}
