# legacy_two_agent — a two-agent Copilot loop written in the Go tool's older syntax, which is
# still accepted: everything nested in `workflow "x" {}`, `agent = "n"` and `adapter = "shell"`
# step fields, `lifecycle = "open"/"close"` session steps, `on_crash`, `type = "workflow"` with an
# inline body, and `transition_to`. Uses the real `copilot` CLI (tests put a fake one on PATH).
workflow "legacy_two_agent" {
  version       = "0.1"
  initial_state = "open_executor"
  target_state  = "done"

  variable "task" {
    type        = "string"
    default     = "Fix the flaky retry test in client_test.go"
    description = "What the executor is asked to do."
  }

  policy {
    max_total_steps           = 50
    max_visits_warn_threshold = 6
  }

  agent "executor" {
    adapter  = "copilot"
    on_crash = "respawn"
    config {
      model = "gpt-5.3-codex"
    }
  }

  agent "reviewer" {
    adapter = "copilot"
    config {
      model = "claude-sonnet-4.5"
    }
  }

  step "open_executor" {
    agent     = "executor"
    lifecycle = "open"
    outcome "success" { transition_to = "open_reviewer" }
  }

  step "open_reviewer" {
    agent     = "reviewer"
    lifecycle = "open"
    outcome "success" { transition_to = "execute" }
  }

  step "execute" {
    agent      = "executor"
    on_crash   = "abort_run"
    max_visits = 4
    input {
      prompt = "${var.task}. Run the tests before you answer."
    }
    outcome "done"   { transition_to = "verify" }
    outcome "failed" { transition_to = "close_reviewer_failed" }
  }

  # Run the suite three times: a flaky test has to pass every time.
  step "verify" {
    type  = "workflow"
    count = 3

    workflow {
      step "run_tests" {
        adapter = "shell"
        timeout = "1m"
        input {
          command = "echo 'run ${each._idx + 1}: ok'"
        }
        outcome "success" { transition_to = "_continue" }
        outcome "failure" { transition_to = "flaky" }
      }

      state "flaky" {
        terminal = true
        success  = false
      }
    }

    outcome "all_succeeded" { transition_to = "review" }
    outcome "any_failed"    { transition_to = "execute" }
  }

  step "review" {
    agent      = "reviewer"
    max_visits = 4
    input {
      prompt = "Review the executor's fix for: ${var.task}"
    }
    outcome "approved" { transition_to = "close_reviewer" }
    outcome "changes"  { transition_to = "execute" }
  }

  step "close_reviewer" {
    agent     = "reviewer"
    lifecycle = "close"
    outcome "success" { transition_to = "close_executor" }
  }

  step "close_executor" {
    agent     = "executor"
    lifecycle = "close"
    outcome "success" { transition_to = "done" }
  }

  step "close_reviewer_failed" {
    agent     = "reviewer"
    lifecycle = "close"
    outcome "success" { transition_to = "close_executor_failed" }
  }

  step "close_executor_failed" {
    agent     = "executor"
    lifecycle = "close"
    outcome "success" { transition_to = "failed" }
  }

  state "done" {
    terminal = true
  }

  state "failed" {
    terminal = true
    success  = false
  }
}
