# review_panel — two specialised reviewers read the same diff in parallel and consult each
# other on a `channel` mid-review (each posts its finding to the other lens and receives the
# other's: journaled messages, seen exactly once even across a crash and a resume); then the
# executor summarises both reviews and what each lens heard. All agents are scripted.
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
      outcome "done" { next = "tell_maintainability" }
    }

    # Each lens tells the other what it found: a post on the panel channel.
    step "tell_maintainability" {
      target = channel.panel
      input {
        post = { from = "security", to = "maintainability", body = steps.security_review.notes }
      }
      outcome "success" { next = "hear" }
    }

    step "maintainability_review" {
      target = agent.maintainability
      input {
        diff = steps.diff.stdout
      }
      outcome "done" { next = "tell_security" }
    }

    step "tell_security" {
      target = channel.panel
      input {
        post = { from = "maintainability", to = "security", body = steps.maintainability_review.notes }
      }
      outcome "success" { next = "hear" }
    }

    # ... and hears what the other lens found (bounded: a silent lens is a timeout, not a hang).
    step "hear" {
      target = channel.panel
      input {
        recv = { as = each.value, timeout = "10m" }
      }
      outcome "received" {
        next   = "return"
        output = { lens = each.value, heard_from = steps.hear.from, heard = steps.hear.body }
      }
      outcome "timeout" {
        next   = "return"
        output = { lens = each.value, heard_from = "", heard = "" }
      }
    }
  }

  outcome "all_succeeded" { next = "summary" }
  outcome "any_failed"    { next = "failed" }
}

step "summary" {
  target = agent.executor
  input {
    panel = jsonencode([for r in steps.reviews : { lens = r.lens, notes = r.notes, heard_from = r.heard_from, heard = r.heard }])
  }
  outcome "done" {
    next   = "applied"
    output = { summary = steps.summary.summary }
  }
  outcome "failure" { next = "failed" }
}

state "applied" {
  terminal = true
}

state "failed" {
  terminal = true
  success  = false
}

output "summary" {
  value = steps.summary.summary
}
