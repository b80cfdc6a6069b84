# A zero-width space pasted after a block: named by its code point, not quoted invisibly
# (found by a trial of the Go tool's docs: the message showed "" and told to quote it).
workflow "t" {
  version       = "1"
  initial_state = "done"
  target_state  = "done"
}​
state "done" { terminal = true }
