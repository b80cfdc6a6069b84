# A file of only comments: no workflow at all.
// workflow "demo" {
//   initial_state = "build"
// }
/* step "build" { adapter = "noop" } */
