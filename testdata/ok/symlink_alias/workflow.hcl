# The seed's repro (shared/seeds/001), fixed: agents declared by the enclosing
# workflow are visible inside a type = "workflow" body. Older syntax, on purpose.
workflow {
  name          = "agent_in_body"
  version       = "1"
  initial_state = "loop"
  target_state  = "done"
}

adapter "copilot" "executor" {
  config { model = "gpt-5.3-codex" }
}

step "loop" {
  type  = "workflow"
  count = 3

  workflow {
    step "execute" {
      target = adapter.copilot.executor
      input { prompt = "do work" }
      outcome "success" { next = "_continue" }
      outcome "failure" { next = "_continue" }
    }
  }

  outcome "all_succeeded" { next = "done" }
  outcome "any_failed"    { next = "done" }
}

state "done" { terminal = true }
