# An adapter distributed as an OCI artifact: it validates (as in the Go tool); apply refuses it before the first step.
workflow {
  name          = "oci"
  version       = "1"
  initial_state = "ask"
  target_state  = "done"
}

adapter "anthropic" "default" {
  source  = "ghcr.io/your-org/criteria-adapter-anthropic"
  version = "0.5.0"
}

step "ask" {
  target = adapter.anthropic.default
  input { prompt = "hello" }
  outcome "success" { next = state.done }
}

state "done" {
  terminal = true
  success  = true
}
