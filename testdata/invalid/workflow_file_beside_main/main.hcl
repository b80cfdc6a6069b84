# body.hcl beside main.hcl in a directory module: it is merged into the module and also named
# by workflow_file (module_overlap, with a hint to move it into a subfolder).
workflow {
  name          = "side"
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}
adapter "noop" "default" {}
step "build" {
  workflow_file = "./body.hcl"
  outcome "success" { next = state.done }
}
state "done" { terminal = true }
