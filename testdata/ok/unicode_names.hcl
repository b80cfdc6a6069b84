# Names may use any letters (HCL identifiers are Unicode): steps, states and references.
workflow "prüfung" {
  version       = "1"
  initial_state = "prüfen"
  target_state  = "fertig"
}

step "prüfen" {
  adapter = "noop"
  input { ergebnis = "gut" }
  outcome "success" { next = "berichten" }
}

step "berichten" {
  adapter = "noop"
  input { text = "Prüfung: ${steps.prüfen.ergebnis}" }
  outcome "success" { next = state.fertig }
}

state "fertig" { terminal = true }
