# A step named "__proto__": names starting with "__" are reserved (and this one is
# also a JavaScript prototype key, which must not confuse the compiler).
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

step "build" {
  adapter = "noop"
  outcome "success" { next = "done" }
}

step "__proto__" {
  adapter = "noop"
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
