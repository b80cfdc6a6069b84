# shared_counter — hunting a flaky test: a `count` body runs the suite var.runs times in a
# stress environment and tallies failures in run-wide shared variables (outcome shared_writes);
# a branch on shared.* then decides whether a scripted fixer quarantines the test. Shows
# environment "shell" blocks (header default and per-step), permissions and step allow_tools.
workflow "shared_counter" {
  version       = "1"
  initial_state = "hunt"
  target_state  = "stable"
  environment   = "shell.ci"
}

variable "runs" {
  type        = "number"
  default     = 6
  description = "How many times to run the suspect test."
}

variable "test_name" {
  type        = "string"
  default     = "TestRetryBackoff"
  description = "The suspect test."
}

local "run_cmd" {
  value = "echo 'go test -run ${var.test_name} -count=1 ./client/...'"
}

policy {
  max_total_steps           = 40
  max_step_retries          = 0
  max_visits_warn_threshold = 10
}

# Tools any agent step may use at most; a step narrows them with allow_tools.
permissions {
  allow_tools = ["read_file", "edit_file", "run_tests"]
}

shared_variable "failures" {
  type  = "number"
  value = 0
}

shared_variable "failing_runs" {
  type  = "list(number)"
  value = []
}

shared_variable "last_error" {
  type  = "string"
  value = ""
}

environment "shell" "ci" {
  variables = {
    CI = "true"
    TZ = "UTC"
  }
  config {
    inherit_env = false
  }
}

environment "shell" "stress" {
  variables {
    CI          = "true"
    STRESS      = "1"
    GOMAXPROCS  = "2"
  }
  config {
    inherit_env = false
    nice        = 10
  }
}

adapter "shell" "default" {
  config {
    shell = "/bin/sh"
  }
}

agent "fixer" {
  adapter = "local"
  model   = "scripted-fixer"
  config {
    script = "./scripts/fixer.json"
  }
}

step "hunt" {
  count = var.runs

  workflow {
    step "run" {
      target      = adapter.shell.default
      environment = "shell.stress"
      timeout     = "30s"
      input {
        # Every third run "fails", standing in for the flaky test.
        command = "${local.run_cmd} && test $(( ${each._idx} % 3 )) -ne 2"
      }
      outcome "success" { next = "_continue" }
      outcome "failure" {
        next = "_continue"
        shared_writes = {
          failures     = shared.failures + 1
          failing_runs = concat(shared.failing_runs, [each._idx])
          last_error   = format("run %d of %d failed: %s", each._idx + 1, each._total, steps.run.stderr)
        }
      }
    }
  }

  outcome "all_succeeded" { next = "verdict" }
  outcome "any_failed"    { next = "verdict" }
}

branch "verdict" {
  arm {
    when = shared.failures == 0
    next = "stable"
  }
  arm {
    when = shared.failures >= var.runs
    next = "broken"
  }
  default {
    next = "quarantine"
  }
}

step "quarantine" {
  target      = agent.fixer
  timeout     = "10m"
  allow_tools = ["read_file", "edit_file"]
  input {
    test         = var.test_name
    failures     = shared.failures
    failing_runs = jsonencode(shared.failing_runs)
    last_error   = shared.last_error
  }
  outcome "quarantined" {
    next          = "notify"
    output        = { pr = steps.quarantine.pr }
    shared_writes = { last_error = "" }
  }
  outcome "failure" { next = "broken" }
}

step "notify" {
  target  = adapter.shell.default
  timeout = "30s"
  input {
    command = "echo '${var.test_name} failed ${shared.failures} of ${var.runs} runs; quarantined in ${steps.quarantine.pr}'"
  }
  outcome "success" { next = "stable" }
  outcome "failure" { next = "stable" }
}

state "stable" {
  terminal = true
}

state "broken" {
  terminal = true
  success  = false
}

output "failures" {
  type        = "number"
  description = "How many of the runs failed."
  value       = shared.failures
}
