# Module paths that cannot be loaded: an expression, a remote source, a directory without
# workflow files (reported where they are named, not at the directory).
workflow {
  name          = "main"
  version       = "1"
  initial_state = "a"
  target_state  = "done"
}
variable "p" {
  type    = string
  default = "./x"
}

subworkflow "expr" { source = "${var.p}" }
subworkflow "remote" { source = "git::https://example.com/mods.git//x" }
subworkflow "docs" { source = "./docs" }

adapter "noop" "default" {}

step "a" {
  target = adapter.noop.default
  outcome "success" { next = state.done }
}

state "done" { terminal = true }
