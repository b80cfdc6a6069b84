# Lexical corner cases for the HCL position scanner.
// Line comments of both kinds, and /* block */ comments.
/* A block comment
   spanning lines { " <<EOT
*/
workflow "lexical" {
  version = "0.1" # trailing comment
  plain   = "hello" // trailing comment
  blockc  = /* before */ "x" /* after */
  escapes = "tab\t nl\n quote\" backslash\\ unicode\u00e9 \U0001F600 brace}"
  dollar  = "$${not_interpolated} %%{not_a_directive} $ % $x"
  interp  = "execute:${each.value}"
  nested  = "${jsonencode({a = "}", b = "{"})}"
  deeper  = "a ${format("%s-${upper("x}")}", "{")} b"
  direct  = "%{ if var.on }on%{ else }off%{ endif }"
  strip   = "${~ var.x ~}"
  cond    = var.env == "prod" ? "a" : "b"
  call    = merge(var.a, { k = "v" })
  multi   = concat(
    ["a", "b"],   # comment inside parens
    ["c"],
  )
  math    = (1 +
    2) * 3
  neg     = -1
  float   = 1.5e3
  bool    = !true
  nul     = null
  heredoc = <<EOT
Line one with "quotes" and ${var.x} and } braces {
  indented ${ {a = "EOT"}.a } line
EOT
  indent  = <<-EOT
    first
      second ${var.y}
    EOT
  notend  = <<EOT
 EOTX
EOT  x
  EOT
  after   = "after heredocs"
  unicode = "héllo wörld 日本語 😀"
  日本語    = "non-ASCII identifier"
  dash-ed = "identifier with dashes"
  _under  = "underscore identifier"
  single { inline = "one-line block" }
  tmpl_in_heredoc = <<EOT
${ "string with <<EOT\nEOT inside" }
%{ for x in ["a", "b"] }${x}%{ endfor }
EOT
}
