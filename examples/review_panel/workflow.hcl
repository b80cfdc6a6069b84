# review_panel — two specialised reviewers read the same diff in parallel, then settle their
# differences on a `channel` (a journaled message exchange between agents) before the executor
# applies the agreed changes; a split panel goes to a human approval. All agents are scripted.
workflow "review_panel" {
  version       = "1"
  initial_state = "diff"
  target_state  = "applied"
}

variable "lenses" {
  type        = "list(string)"
  default     = ["security", "maintainability"]
  description = "Review lenses, one parallel review each."
}

adapter "shell" "default" {
  config {
    shell = "/bin/sh"
  }
}

adapter "noop" "default" {}

agent "security" {
  adapter = "local"
  model   = "scripted-security"
  config {
    script = "./scripts/security.json"
  }
}

agent "maintainability" {
  adapter = "local"
  model   = "scripted-maintainability"
  config {
    script = "./scripts/maintainability.json"
  }
}

agent "executor" {
  adapter = "local"
  model   = "scripted-executor"
  config {
    script = "./scripts/executor.json"
  }
}

channel "panel" {
  participants = [agent.security, agent.maintainability]
}

step "diff" {
  target = adapter.shell.default
  input {
    command = "printf '%s\\n' '+ log.debug(\"request\", req.body)' '+ retry(3, send)'"
  }
  outcome "success" { next = "reviews" }
  outcome "failure" { next = "failed" }
}

step "reviews" {
  parallel     = var.lenses
  parallel_max = 2

  workflow {
    # Bodies start at their first step. (A body header `workflow { initial_state = "pick_reviewer" }`
    # would say this directly, but the HCL form of a body header is rejected by the compiler today.)
    step "announce" {
      target = adapter.noop.default
      input {
        lens = upper(each.value)
        of   = each._total
      }
      outcome "success" { next = "pick_reviewer" }
    }

    branch "pick_reviewer" {
      arm {
        when = each.value == "security"
        next = "security_review"
      }
      default {
        next = "maintainability_review"
      }
    }

    step "security_review" {
      target = agent.security
      input {
        diff = steps.diff.stdout
      }
      outcome "done" {
        next   = "return"
        output = { lens = each.value, notes = steps.security_review.notes }
      }
    }

    step "maintainability_review" {
      target = agent.maintainability
      input {
        diff = steps.diff.stdout
      }
      outcome "done" {
        next   = "return"
        output = { lens = each.value, notes = steps.maintainability_review.notes }
      }
    }
  }

  outcome "all_succeeded" { next = "discuss" }
  outcome "any_failed"    { next = "failed" }
}

step "discuss" {
  target  = channel.panel
  timeout = "10m"
  input {
    topic  = "Agree on one list of required changes"
    diff   = steps.diff.stdout
    notes  = jsonencode(steps.reviews)
  }
  outcome "consensus" {
    next   = "apply"
    output = { changes = steps.discuss.changes }
  }
  outcome "split" { next = "tie_break" }
}

approval "tie_break" {
  approvers = ["tech-lead"]
  reason    = "The review panel disagrees; pick the changes to apply."
  outcome "approved" { next = "apply" }
  outcome "rejected" { next = "failed" }
}

step "apply" {
  target = agent.executor
  input {
    changes = steps.discuss.changes
  }
  outcome "done"    { next = "applied" }
  outcome "failure" { next = "failed" }
}

state "applied" {
  terminal = true
}

state "failed" {
  terminal = true
  success  = false
}
