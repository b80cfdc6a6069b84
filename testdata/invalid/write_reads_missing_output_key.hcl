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
  outcome "any_failed" { next = "d" }
}
# Per item, output.* is the item's own result over the projection: stdout is there (a new-user
# trial: it was refused as if the result were the list), its typo is not.
step "d" {
  target = adapter.shell.default
  count  = 2
  input { command = "echo ${each.value}" }
  outcome "success" {
    next = continue
    write {
      target = data.internal.note.value
      value  = "${output.stdout}${output.stdot}"
    }
  }
  outcome "all_succeeded" { next = "done" }
  outcome "any_failed" { next = "done" }
}
state "done" { terminal = true }
