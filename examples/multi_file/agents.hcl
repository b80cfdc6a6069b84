# multi_file/agents.hcl — the agents and adapter sessions of the multi_file workflow.

adapter "codex" "executor" {
  on_crash = "respawn"
  config {
    model   = "gpt-5-codex"
    sandbox = "workspace-write"
  }
}

adapter "shell" "ci" {
  config {
    shell = "/bin/sh"
  }
}

agent "reviewer" {
  cli   = "claude"
  model = "claude-sonnet-4-6"
}
