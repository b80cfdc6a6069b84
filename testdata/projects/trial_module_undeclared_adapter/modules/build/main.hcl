workflow {
  name          = "build"
  version       = "1"
  initial_state = "compile"
  target_state  = "built"
  expects {
    adapters = [adapter.shell.default]
  }
}

variable "service" {
  type        = string
  description = "The service to build."
}

variable "ledger" {
  type = string
}

variable "nap" {
  type    = number
  default = 2
}

output "artifact" {
  type  = string
  value = trimspace(steps.compile.stdout)
}
