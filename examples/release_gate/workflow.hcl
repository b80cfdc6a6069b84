# release_gate — the human and time gates around an agent-prepared release: CI must pass, a
# scripted agent drafts the notes, release managers approve (approval), the deploy waits for
# its window (wait with a duration), and the canary is promoted only after an external
# "canary-healthy" signal (wait with a signal). Release candidates skip the sign-off (branch).
workflow "release_gate" {
  version       = "1.2"
  initial_state = "ci"
  target_state  = "released"
}

variable "release" {
  type        = "string"
  default     = "v2.4.0"
  description = "The tag to release; a tag ending in -rc skips the human sign-off."
}

local "changelog_cmd" {
  value = "printf '%s\\n' 'fix: parse_config rejects empty keys' 'feat: --strict flag'"
}

policy {
  max_total_steps = 30
}

adapter "shell" "ci" {
  on_crash = "fail"
  config {
    shell = "/bin/sh"
  }
}

agent "scribe" {
  adapter = "local"
  model   = "scripted-scribe"
  config {
    script = "./scripts/scribe.json"
  }
}

step "ci" {
  target  = adapter.shell.ci
  timeout = "2m"
  input {
    command = "echo 'build ok' && echo 'tests: 212 passed, 0 failed' && ${local.changelog_cmd}"
  }
  outcome "success" { next = "release_kind" }
  outcome "failure" { next = "blocked" }
}

branch "release_kind" {
  arm {
    when = endswith(var.release, "-rc")
    next = "deploy_window"
  }
  default {
    next = "draft_notes"
  }
}

step "draft_notes" {
  target  = agent.scribe
  timeout = "5m"
  input {
    release = var.release
    changes = steps.ci.stdout
  }
  outcome "drafted" {
    next   = "sign_off"
    output = { notes = steps.draft_notes.notes, release = var.release }
  }
  outcome "failure" { next = "blocked" }
}

approval "sign_off" {
  approvers = ["release-manager", "security-oncall"]
  reason    = "Ship ${var.release} to production?\n\n${steps.draft_notes.notes}"
  outcome "approved" { next = "deploy_window" }
  outcome "rejected" { next = "rejected" }
}

wait "deploy_window" {
  duration = "15m"
  next     = "deploy_canary"
}

step "deploy_canary" {
  target  = adapter.shell.ci
  timeout = "2m"
  input {
    command = "echo 'deploying ${var.release} to 5% of hosts'"
  }
  outcome "success" { next = "canary_healthy" }
  outcome "failure" { next = "rollback" }
}

wait "canary_healthy" {
  signal   = "canary-healthy"
  duration = "30m" # with a signal, the duration is the timeout
  outcome "received" { next = "promote" }
  outcome "timeout"  { next = "rollback" }
}

step "promote" {
  target  = adapter.shell.ci
  timeout = "2m"
  input {
    command = "echo 'promoting ${upper(var.release)} to 100% of hosts'"
  }
  outcome "success" { next = "released" }
  outcome "failure" { next = "rollback" }
}

step "rollback" {
  target  = adapter.shell.ci
  timeout = "2m"
  input {
    command = "echo 'rolling back ${var.release}'"
  }
  outcome "success" { next = "rolled_back" }
  outcome "failure" { next = "rolled_back" }
}

state "released" {
  terminal = true
  success  = true
}

state "blocked" {
  terminal = true
  success  = false
}

state "rejected" {
  terminal = true
  success  = false
}

state "rolled_back" {
  terminal = true
  success  = false
}

output "release" {
  type  = "string"
  value = var.release
}
