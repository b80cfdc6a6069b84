# nested_bodies — bodies within bodies: a `for_each` over services runs an outer body that
# declares its own variable, local and agent (a security scanner); inside it a `count` body runs
# the executor ↔ reviewer rounds using the root workflow's agents, two scopes up. Scopes nest:
# each body sees everything its enclosing workflows declare. All agents are scripted (local).
workflow "nested_bodies" {
  version       = "1"
  initial_state = "services"
  target_state  = "done"
}

variable "services" {
  type        = "list(string)"
  default     = ["api", "worker"]
  description = "Services to harden, one outer iteration each."
}

local "guideline" {
  value = "Follow docs/SECURITY.md; never log secrets."
}

policy {
  max_total_steps           = 80
  max_visits_warn_threshold = 12
}

adapter "shell" "default" {
  config {
    shell = "/bin/sh"
  }
}

agent "executor" {
  adapter = "local"
  model   = "scripted-executor"
  config {
    script = "./scripts/executor.json"
  }
}

agent "reviewer" {
  adapter = "local"
  model   = "scripted-reviewer"
  config {
    script = "./scripts/reviewer.json"
  }
}

step "services" {
  for_each = var.services

  # Outer body: one per service.
  workflow {
    variable "rounds" {
      type        = "number"
      default     = 2
      description = "Executor/reviewer rounds per service."
    }

    local "service" {
      value = each.value
    }

    # An agent only this body (and bodies inside it) can see.
    agent "security" {
      adapter = "local"
      model   = "scripted-security"
      config {
        script = "./scripts/security.json"
      }
    }

    step "scan" {
      target  = agent.security
      timeout = "5m"
      input {
        service   = local.service
        guideline = local.guideline
      }
      outcome "findings" {
        next   = "fix_rounds"
        output = { findings = steps.scan.findings }
      }
      outcome "clean" { next = "_continue" }
    }

    step "fix_rounds" {
      count = var.rounds

      # Inner body: executor and reviewer are the root's agents, two scopes up.
      workflow {
        step "fix" {
          target  = agent.executor
          timeout = "10m"
          input {
            service  = local.service
            findings = steps.scan.findings
            attempt  = each._idx + 1
          }
          outcome "done"    { next = "check" }
          outcome "failure" { next = "gave_up" }
        }

        step "check" {
          target  = adapter.shell.default
          timeout = "30s"
          input {
            command = "echo 'checking ${local.service}' && printf '%s\\n' '${steps.fix.summary}' | grep -v -q 'password='"
          }
          outcome "success" { next = "review" }
          outcome "failure" { next = "again" }
        }

        step "review" {
          target = agent.reviewer
          input {
            service   = local.service
            change    = steps.fix.summary
            guideline = local.guideline
          }
          outcome "approved"          { next = "return" }
          outcome "changes_requested" { next = "again" }
        }

        branch "again" {
          arm {
            when = each._last
            next = "gave_up"
          }
          default {
            next = "_continue"
          }
        }

        state "gave_up" {
          terminal = true
          success  = false
        }
      }

      outcome "all_succeeded" { next = "report" }
      outcome "any_failed"    { next = "service_failed" }
    }

    step "report" {
      target = adapter.shell.default
      input {
        command = "echo '${upper(local.service)}: hardened (${each._idx + 1}/${each._total})'"
      }
      outcome "success" { next = "_continue" }
      outcome "failure" { next = "service_failed" }
    }

    state "service_failed" {
      terminal = true
      success  = false
    }
  }

  outcome "all_succeeded" { next = "done" }
  outcome "any_failed"    { next = "partial" }
}

state "done" {
  terminal = true
}

state "partial" {
  terminal = true
  success  = false
}

output "services" {
  type  = "string"
  value = join(", ", var.services)
}
