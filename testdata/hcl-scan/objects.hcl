step "objects" {
  input = {
    a        = 1
    "b"      = "two"
    "quoted key" = x
    c        = { d = 2, e = [3, 4] }
    colon: "colon separator"
    "q-colon": true,
    comma1 = 1, comma2 = 2,
    "esc\"aped\n" = 5
    "é"      = "unicode key"
    "a/b~c"  = "pointer escapes"
    "$${lit}" = "escaped template key"
    1        = "number key"
    1.50     = "decimal key"
    2e3      = "exponent key"
    trav.sub = "traversal key"
    idx[0]   = "index key"
    null     = "null key"
    (var.k)  = "computed: parenthesized"
    "${var.k}" = "computed: template"
    "a${var.k}b" = "computed: template with text"
    -1       = "computed: unary"
    var.m.*.x = "computed: splat"
    multi    = [
      1,
      { inner = "x" },
      [ "y", "z" ],
    ]
    fn       = lookup(var.m, "k", {})
    forexpr  = { for k, v in var.m : k => v }
    fortup   = [for x in var.l : upper(x)]
    partial  = { a = 1 }.a
    tuplepart = [1, 2][0]
    cond     = var.x ? { a = 1 } : { b = 2 }
    emptyo   = {}
    emptyt   = []
    hd       = <<EOT
heredoc value
EOT
    wrapped  = "${ { w = 1 } }"
    wrapt    = "${[1, {v = 2}]}"
  }
  for_each = ["alpha", "beta", "gamma"]
  nested_tuples = [[1, [2, [3]]], {}, [{}]]
  trailing = [
    "a",
    "b",
  ]
  oneline = { x = 1, y = { z = [1, 2] } }
  dup = { k = 1, k = { later = true } }
}
