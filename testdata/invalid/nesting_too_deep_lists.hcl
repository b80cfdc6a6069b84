# A locals value nested 100 lists deep (the limit is 64).
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

local "deep" {
  value = [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]
}

step "build" {
  adapter = "noop"
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
