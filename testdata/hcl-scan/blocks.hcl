workflow "w" {
  version = "0.1"

  policy {
    max_total_steps = 50
  }

  adapter "shell" "default" {
    config { }
  }
  adapter "shell" "other" {}
  adapter "noop" "default" {}

  step "a" {
    outcome "success" { transition_to = "b" }
    outcome "failure" { transition_to = "a" }
  }
  step "b" {
    workflow {
      step "inner" {
        input { x = 1 }
        outcome "success" { transition_to = "_continue" }
      }
    }
  }
  step "a" {
    note = "repeated labels get index 1"
  }
  step bare_label { }
  step "label/with~chars" {}
  step "esc\"label" {}

  condition { match = true }
  condition {
    match = false
  }

  state "done" { terminal = true }
}

variable "x" { type = "string" }
variable "y" {}
output "o" { value = var.x }

clash = "attribute wins over the block below"
clash "label" {
  ignored = true
}
