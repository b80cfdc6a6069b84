# for_each_files — one executor pass per file: a plain `for_each` over a list announces the work,
# then a `for_each` over a map runs an inline body per file (each.key = path, each.value = the
# instruction) that shows every iteration value: each._idx, _total, _first, _last and _prev.
# A failed file does not stop the others (on_failure = "continue"); the editor is scripted.
workflow "for_each_files" {
  version       = "2"
  initial_state = "announce"
  target_state  = "done"
}

variable "files" {
  type        = "map(string)"
  description = "Files to change, each mapped to the instruction the editor gets for it."
  default = {
    "src/config.ts" = "validate every key and report the line of the first bad one"
    "src/cli.ts"    = "reject unknown flags instead of ignoring them"
    "docs/usage.md" = "document the two changes above"
  }
}

variable "labels" {
  type        = "list(string)"
  description = "Labels put on the pull request."
  default     = ["agent", "needs-review"]
}

local "commit_prefix" {
  value = "chore(agent):"
}

local "paths" {
  value = keys(var.files)
}

policy {
  max_total_steps = 40
}

adapter "shell" "default" {
  config {
    shell = "/bin/sh"
  }
}

adapter "noop" "marker" {}

agent "editor" {
  adapter = "local"
  model   = "scripted-editor"
  config {
    script = "./scripts/editor.json"
  }
}

# A single step iterating over a list: no body, just one command per element.
step "announce" {
  target   = adapter.shell.default
  for_each = local.paths
  input = {
    command = "printf 'file %d of %d: %s\\n' ${each._idx + 1} ${each._total} '${each.value}'"
  }
  outcome "all_succeeded" { next = "edit_files" }
  outcome "any_failed"    { next = "failed" }
}

step "edit_files" {
  for_each   = var.files
  on_failure = "continue"

  workflow {
    step "edit" {
      target          = agent.editor
      timeout         = "5m"
      default_outcome = "needs_review"
      input = {
        path        = each.key
        instruction = each.value
        position    = "${each._idx + 1}/${each._total}"
        previous    = each._first ? "none" : jsonencode(each._prev)
        final_file  = each._last
      }
      outcome "edited"       { next = "check" }
      outcome "needs_review" { next = "check" }
      outcome "skipped"      { next = "_continue" }
    }

    step "check" {
      target  = adapter.shell.default
      timeout = "30s"
      input {
        command = "printf '%s\\n' '${steps.edit.patch}' | grep -q -F '${each.key}'"
      }
      outcome "success" {
        next   = "mark"
        output = { path = each.key, patch = steps.edit.patch }
      }
      outcome "failure" { next = "rejected" }
    }

    step "mark" {
      target = adapter.noop.marker
      input {
        label = upper(each.key)
      }
      outcome "success" { next = "_continue" }
    }

    state "rejected" {
      terminal = true
      success  = false
    }
  }

  outcome "all_succeeded" { next = "open_pr" }
  outcome "any_failed"    { next = "open_pr" }
}

step "open_pr" {
  target  = adapter.shell.default
  timeout = "30s"
  input {
    command = "echo '${local.commit_prefix} ${join(", ", local.paths)} [${join(",", var.labels)}]'"
  }
  outcome "success" { next = "done" }
  outcome "failure" { next = "failed" }
}

state "done" {
  terminal = true
}

state "failed" {
  terminal = true
  success  = false
}

output "files_changed" {
  type        = "number"
  description = "How many files the editor was asked to change."
  value       = length(var.files)
}

output "first_patch" {
  type  = "string"
  value = steps.edit_files[0].patch
}
