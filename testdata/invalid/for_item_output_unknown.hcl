# A `for` over an iterating step's outputs, and each.value of a step iterating over them,
# read keys its items have (found by a new-user trial: [for b in steps.build_all : b.artefact]
# and each.value.artifct over a module's outputs validated, and the run failed after every
# effect). A read under try() and one of a name an inner `for` binds again are left alone.
workflow {
  name          = "for_items"
  version       = "1"
  initial_state = "build"
  target_state  = "done"
}

adapter "shell" "default" {}

step "build" {
  target   = adapter.shell.default
  for_each = ["api", "web"]
  input { command = "echo ${each.value}" }
  outcome "all_succeeded" { next = step.pack }
  outcome "any_failed" { next = state.done }
}

step "pack" {
  count = 2
  workflow {
    step "tar" {
      target = adapter.shell.default
      input { command = "echo pack" }
      outcome "success" { next = "_continue" }
    }
    output "artifact" { value = steps.tar.stdout }
  }
  outcome "all_succeeded" { next = step.ship }
  outcome "any_failed" { next = state.done }
}

# each.value is an item of steps.pack: its own fields and its body read its keys.
step "ship" {
  for_each = steps.pack
  workflow {
    step "send" {
      target = adapter.shell.default
      input { command = "echo ${each.value.artifct} ${each.value.artifact}" }
      outcome "success" { next = "_continue" }
    }
  }
  outcome "all_succeeded" { next = step.decoded }
  outcome "any_failed" { next = state.done }
}

# Items projected by one expression may hold any key (found by a trial of this check: refused).
step "decoded" {
  target   = adapter.shell.default
  for_each = ["a", "b"]
  input { command = "printf '{\"name\":\"%s\"}' ${each.value}" }
  outcome "success" {
    next   = continue
    output = jsondecode(step.output.stdout)
  }
  outcome "all_succeeded" { next = state.done }
  outcome "any_failed" { next = state.done }
}

output "names" { value = [for d in steps.decoded : d.name] }
output "built" { value = [for b in steps.build : b.stdot] }
output "codes" { value = [for i, b in steps.build : b.exit_code if b.exit_code == 0] }
output "packed" { value = [for p in steps.pack : p.artefact] }
output "guarded" { value = [for p in steps.pack : try(p.nope, "")] }
output "shadowed" { value = [for p in steps.pack : [for p in ["x"] : p]] }

state "done" {
  terminal = true
}
