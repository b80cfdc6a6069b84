# multi_file/steps.hcl — the executor ↔ CI ↔ reviewer loop, bounded by max_visits.

step "implement" {
  target     = adapter.codex.executor
  timeout    = "15m"
  max_visits = 3
  input {
    prompt = "Implement ${var.issue}. Keep the change small."
  }
  outcome "done"    { next = "ci" }
  outcome "failure" { next = "abandoned" }
}

# The CI body: lint, then tests, on this workflow's shell.ci adapter and variables. (Inline
# here; in a file of its own it would be read with workflow_file = "./bodies/ci.hcl".)
step "ci" {
  max_visits = 3

  workflow {
    step "lint" {
      target  = adapter.shell.ci
      timeout = "1m"
      input {
        command = "echo 'lint: clean'"
      }
      outcome "success" { next = "test" }
      outcome "failure" { next = "red" }
    }

    step "test" {
      target  = adapter.shell.ci
      timeout = "5m"
      input {
        command = var.test_command
      }
      outcome "success" { next = "return" }
      outcome "failure" { next = "red" }
    }

    state "red" {
      terminal = true
      success  = false
    }
  }

  outcome "success" { next = "review" }
  outcome "failure" { next = "implement" }
}

step "review" {
  target     = agent.reviewer
  timeout    = "10m"
  max_visits = 3
  input = {
    prompt = "Review the change for ${var.issue}; answer approved or changes_requested."
    title  = local.pr_title
  }
  outcome "approved" {
    next   = "ready"
    output = { title = local.pr_title }
  }
  outcome "changes_requested" { next = "implement" }
}
