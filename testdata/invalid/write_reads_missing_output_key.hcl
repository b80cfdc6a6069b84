workflow "w" {
  version       = "1"
  initial_state = "a"
  target_state  = "done"
}
adapter "shell" "default" {}
data "internal" "note" {
  type  = string
  value = ""
}
step "a" {
  target = adapter.shell.default
  input { command = "echo hi" }
  outcome "success" {
    next   = "b"
    output = { verdict = "ok" }
    write {
      target = data.internal.note.value
      value  = output.verdit
    }
  }
}
step "b" {
  target = adapter.shell.default
  input { command = "echo hi" }
  outcome "success" {
    next   = "c"
    write {
      target = data.internal.note.value
      value  = output.stdout
    }
  }
}
step "c" {
  target   = adapter.shell.default
  for_each = ["x"]
  input { command = "echo ${each.value}" }
  outcome "all_succeeded" {
    next = "done"
    write {
      target = data.internal.note.value
      value  = output.stdout
    }
  }
  outcome "any_failed" { next = "done" }
}
state "done" { terminal = true }
