step "s1" {
  workflow_file = "./b2.hcl"
  outcome "success" { next = step.s2 }
}
step "s2" {
  workflow_file = "./b2.hcl"
  outcome "success" { next = state.fin }
}
state "fin" { terminal = true }
