# A run that ends through "return" evaluates its output blocks there too: "bout" reads a
# step the return from "a" skips (a trial: the module failed after returning, and validate
# said nothing). A return with its own output projection ("c") evaluates no output block;
# the plain one from "a" evaluates both, so both are said of it.
workflow {
  name          = "mod"
  version       = "1"
  initial_state = "a"
}
adapter "shell" "default" {}
step "a" {
  target = adapter.shell.default
  input { command = "true" }
  outcome "success" { next = "return" }
  outcome "failure" { next = step.b }
}
step "b" {
  target = adapter.shell.default
  input { command = "echo b" }
  outcome "success" { next = step.c }
  outcome "failure" { next = "return" }
}
step "c" {
  target = adapter.shell.default
  input { command = "echo c" }
  outcome "success" {
    next   = "return"
    output = { said = "c" }
  }
}
output "bout" { value = steps.b.stdout }
output "cout" { value = steps.c.stdout }
