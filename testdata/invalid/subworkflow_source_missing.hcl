# subworkflow "inner" names source = "./no_such_dir", which does not exist
# (file_not_found at the source path).
workflow "demo" {
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

subworkflow "inner" {
  source = "./no_such_dir"
}

step "build" {
  adapter = "noop"
  outcome "success" { next = "done" }
}

state "done" { terminal = true }
