# review_loop — the core agent loop: executor ↔ CI ↔ reviewer, at most var.max_rounds rounds.
# Each round of the `count` body runs the scripted executor, a shell CI check and the scripted
# reviewer; an approval leaves the loop early through `return`, a change request goes on to the
# next round with `_continue`, and running out of rounds fails the iteration (any_failed).
# Agents use the deterministic `local` adapter (answers in ./scripts), so the demo needs no service.
workflow "review_loop" {
  version       = "1"
  initial_state = "checkout"
  target_state  = "merged"
}

variable "max_rounds" {
  type        = "number"
  default     = 3
  description = "Executor/reviewer rounds before the loop gives up and asks a human."
}

variable "task" {
  type        = "string"
  default     = "Add input validation to parse_config"
  description = "The change the executor is asked to make."
}

local "work_branch" {
  value = "agent/${lower(replace(var.task, " ", "-"))}"
}

policy {
  max_total_steps           = 60
  max_step_retries          = 1
  max_visits_warn_threshold = 10
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

step "checkout" {
  target  = adapter.shell.default
  timeout = "30s"
  input {
    command = "printf 'working on branch %s\\n' '${local.work_branch}'"
  }
  outcome "success" { next = "review_rounds" }
  outcome "failure" { next = "failed" }
}

step "review_rounds" {
  count = var.max_rounds

  workflow {
    step "execute" {
      target  = agent.executor
      timeout = "10m"
      input {
        task  = var.task
        round = format("round %d of %d", each._idx + 1, each._total)
        notes = each._first ? "first attempt" : "address the reviewer's previous comments"
      }
      outcome "done"    { next = "ci" }
      outcome "failure" { next = "broken" }
    }

    step "ci" {
      target  = adapter.shell.default
      timeout = "30s"
      input {
        command = "printf '%s\\n' '${steps.execute.summary}' | grep -q . && echo 'ci: 12 passed, 0 failed'"
      }
      outcome "success" { next = "review" }
      outcome "failure" { next = "more_rounds" }
    }

    step "review" {
      target  = agent.reviewer
      timeout = "5m"
      input {
        task       = var.task
        diff       = steps.execute.summary
        ci_report  = steps.ci.stdout
        round      = each._idx + 1
      }
      outcome "approved" {
        next   = "return"
        output = { verdict = "approved", round = each._idx + 1 }
      }
      outcome "changes_requested" {
        next   = "more_rounds"
        output = { verdict = "changes_requested", comments = steps.review.comments }
      }
    }

    # Out of rounds? The last change request fails the loop; otherwise go round again.
    branch "more_rounds" {
      arm {
        when = each._last
        next = "out_of_rounds"
      }
      default {
        next = "_continue"
      }
    }

    state "out_of_rounds" {
      terminal = true
      success  = false
    }

    state "broken" {
      terminal = true
      success  = false
    }
  }

  outcome "all_succeeded" { next = "merge" }
  outcome "any_failed"    { next = "needs_human" }
}

step "merge" {
  target  = adapter.shell.default
  timeout = "30s"
  input {
    command = "echo 'merging ${local.work_branch}'"
  }
  outcome "success" { next = "merged" }
  outcome "failure" { next = "failed" }
}

state "merged" {
  terminal = true
}

state "needs_human" {
  terminal = true
  success  = false
}

state "failed" {
  terminal = true
  success  = false
}

output "branch" {
  type        = "string"
  description = "The branch the executor worked on."
  value       = local.work_branch
}
