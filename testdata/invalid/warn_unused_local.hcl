# Found by a new-user trial: the name of local "x" { value = ... } was shown at the word "value".
workflow {
  name          = "x"
  version       = "1"
  initial_state = "done"
  target_state  = "done"
}

local "unused_one" {
  value = "a"
}

locals {
  unused_two = "b"
}

state "done" {
  terminal = true
}
