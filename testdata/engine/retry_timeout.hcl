workflow "retry_resume" {
  version       = "1"
  initial_state = "tmo"
  target_state  = "done"
}
policy {
  max_step_retries = 2
  max_total_steps  = 100
}
adapter "shell" "sh" {
  config { shell = "/bin/sh" }
}
step "tmo" {
  target  = adapter.shell.sh
  timeout = "1s"
  input { command = "echo attempt >> /tmp/criteria-found2/01-retry-unbounded-after-resume/attempts.log; sleep 5" }
  outcome "success" { next = "done" }
  outcome "failure" { next = "done" }
}
state "done" { terminal = true }
