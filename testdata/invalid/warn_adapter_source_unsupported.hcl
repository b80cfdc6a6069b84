# The Go tool's docs' own adapter example: an adapter fetched from an OCI registry.
# criteria does not fetch adapters, and apply refuses the run: validate says so where
# it is written (found by a trial of the v0.5.7 docs: it validated, apply refused).
workflow "oci" {
  version       = "1"
  initial_state = "ask"
  target_state  = "done"
}
adapter "copilot" "assistant" {
  source  = "ghcr.io/example/criteria-adapter-copilot"
  version = "^1.2"
}
adapter "mytool" "default" {
  source = "ghcr.io/example/criteria-adapter-mytool"
}
step "ask" {
  target = adapter.copilot.assistant
  input { prompt = "hello" }
  outcome "success" { next = "tool" }
}
step "tool" {
  target = adapter.mytool.default
  outcome "success" { next = "done" }
}
state "done" { terminal = true }
