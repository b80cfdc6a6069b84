# parallel_lint — CI checks fanned out in parallel (at most two at a time with parallel_max):
# if any check fails (any_failed) a scripted fixer gets the per-check results and the checks
# run again, at most three times (max_visits); once green, the test suite runs as 3 parallel
# shards (parallel = <number>). The fixer is an `adapter "local"` session targeted directly.
workflow "parallel_lint" {
  version       = "1"
  initial_state = "checks"
  target_state  = "green"
}

variable "checks" {
  type        = "map(string)"
  description = "Check name => the shell command that runs it."
  default = {
    format    = "echo 'format: 0 files changed'"
    lint      = "echo 'lint: 0 problems'"
    typecheck = "echo 'typecheck: ok'"
    secrets   = "! printf 'const token = process.env.TOKEN\\n' | grep -q -E 'AKIA[0-9A-Z]{16}'"
  }
}

variable "shards" {
  type        = "number"
  default     = 3
  description = "Parallel test shards."
}

policy {
  max_total_steps  = 60
  max_step_retries = 1
}

adapter "shell" "runner" {
  config {
    shell = "/bin/sh"
  }
}

adapter "local" "fixer" {
  on_crash = "respawn"
  config {
    script = "./scripts/fixer.json"
  }
}

step "checks" {
  target       = adapter.shell.runner
  parallel     = var.checks
  parallel_max = 2
  max_visits   = 3
  timeout      = "2m"
  input = {
    command = each.value
    label   = each.key
  }
  outcome "all_succeeded" { next = "tests" }
  outcome "any_failed"    { next = "fix" }
}

step "fix" {
  target     = adapter.local.fixer
  timeout    = "10m"
  max_visits = 2
  input {
    results = jsonencode(steps.checks)
    checks  = join(", ", keys(var.checks))
  }
  outcome "fixed"    { next = "checks" }
  outcome "give_up"  { next = "red" }
}

step "tests" {
  target       = adapter.shell.runner
  parallel     = var.shards
  parallel_max = 3
  timeout      = "5m"
  input {
    command = "echo 'shard ${each._idx + 1}/${each._total}: ok'"
  }
  outcome "all_succeeded" {
    next   = "green"
    output = { shards = var.shards }
  }
  outcome "any_failed" { next = "red" }
}

state "green" {
  terminal = true
}

state "red" {
  terminal = true
  success  = false
}
