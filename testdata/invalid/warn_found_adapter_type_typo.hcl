workflow "w" {
  version       = "1"
  initial_state = "execute"
  target_state  = "done"
}

variable "n" {
  type    = "number"
  default = 2
}

adapter "shel" "ci" {}

agent "executor" {
  adapter = "local"
  config { script = "./s.json" }
}

step "execute" {
  target = agent.executor
  input { task = "x" }
  outcome "done" { next = "ci" }
}

step "ci" {
  target = adapter.shel.ci
  input { command = "echo ${var.n}" }
  outcome "success" { next = "done" }
  outcome "failure" { next = "failed" }
}

state "done" { terminal = true }
state "failed" {
  terminal = true
  success  = false
}
