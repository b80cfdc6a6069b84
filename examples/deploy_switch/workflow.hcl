# deploy_switch — routing on data: after the tests and a scripted risk review, a v0.3 `switch`
# (condition/match, `next = state.x` / `next = step.x`) picks the deploy target from var.* and
# steps.* values, and a `branch` (arm/when) gates on the measured coverage.
workflow "deploy_switch" {
  version       = "0.3"
  initial_state = "test"
  target_state  = "deployed"
}

variable "env" {
  type        = "string"
  default     = "staging"
  description = "Where to deploy: prod, staging or anything else (no deploy)."
}

variable "min_coverage" {
  type        = "number"
  default     = 80
  description = "Coverage (percent) below which the deploy is held for a human."
}

local "targets" {
  value = {
    prod    = "cluster-eu-1"
    staging = "cluster-staging"
  }
}

adapter "shell" "default" {
  config {
    shell = "/bin/sh"
  }
}

adapter "noop" "default" {}

agent "risk_reviewer" {
  adapter = "local"
  model   = "scripted-risk"
  config {
    script = "./scripts/risk.json"
  }
}

step "test" {
  target  = adapter.shell.default
  timeout = "1m"
  input {
    command = "echo '87'"
  }
  outcome "success" { next = "coverage_gate" }
  outcome "failure" { next = "tests_failed" }
}

branch "coverage_gate" {
  arm {
    when = tonumber(trimspace(steps.test.stdout)) >= var.min_coverage
    next = "assess_risk"
  }
  default {
    next = "hold"
  }
}

step "assess_risk" {
  target = agent.risk_reviewer
  input = {
    env      = var.env
    coverage = trimspace(steps.test.stdout)
    question = format("Is this change safe to deploy to %s (%s)?", var.env, lookup(local.targets, var.env, "nowhere"))
  }
  default_outcome = "assessed"
  outcome "assessed" {
    next   = "route"
    output = { level = coalesce(steps.assess_risk.level, "high") }
  }
}

switch "route" {
  condition {
    match = var.env == "prod" && steps.assess_risk.level == "low"
    next  = step.deploy
  }
  condition {
    match = var.env == "prod"
    next  = state.hold
  }
  condition {
    match = var.env == "staging" && steps.test.exit_code == 0
    next  = step.deploy
  }
  default {
    next = state.skip_deploy
  }
}

step "deploy" {
  target  = adapter.shell.default
  timeout = "5m"
  input {
    command = "echo 'deploying to ${lookup(local.targets, var.env, "nowhere")}'"
  }
  outcome "success" { next = "record" }
  outcome "failure" { next = "deploy_failed" }
}

step "record" {
  target = adapter.noop.default
  input {
    event = jsonencode({ env = var.env, target = lookup(local.targets, var.env, "nowhere"), risk = steps.assess_risk.level })
  }
  outcome "success" { next = "deployed" }
}

state "deployed" {
  terminal = true
}

state "skip_deploy" {
  terminal = true
  success  = true
}

state "hold" {
  terminal = true
  success  = false
}

state "tests_failed" {
  terminal = true
  success  = false
}

state "deploy_failed" {
  terminal = true
  success  = false
}

output "deployed_to" {
  type  = "string"
  value = lookup(local.targets, var.env, "nowhere")
}
