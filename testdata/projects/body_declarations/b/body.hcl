workflow "body" {
  identity = "who"
  use      = ["./d.hcl"]
  expects {
    agents = [agent.zzz]
  }
  memory {
    script = true
  }
}
variable "z" { type = string }
adapter "noop" "default" {}
step "say" {
  target = adapter.noop.default
  input { v = var.z }
  outcome "success" { next = "return" }
}
