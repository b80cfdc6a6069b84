/**
 * The redaction registry (engine/run/redact.ts) in-process: whole secrets, secrets cut at
 * a text's edges (an output tail starting inside one, a head ending inside one), pieces
 * too short to be the secret, a secret inside another, and structured values.
 */
import { describe, expect, it } from "vitest";
import { Redactor } from "../../engine/run/redact.js";

describe("Redactor", () => {
  const r = new Redactor();
  r.add("s3cr3t-Token-42");
  r.add("abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789");

  it("masks a secret wherever it stands, and nothing else", () => {
    expect(r.redact("token=s3cr3t-Token-42 ok")).toBe("token=*** ok");
    expect(r.redact("nothing here")).toBe("nothing here");
    expect(r.redact("")).toBe("");
    expect(r.redact("s3c")).toBe("s3c");
  });

  it("masks a piece of a secret at a text's start or end (a tail or head cut through it), of 4 characters or more", () => {
    expect(r.redact("Token-42 and the rest")).toBe("*** and the rest");
    expect(r.redact("the start of s3cr3t-To")).toBe("the start of ***");
    expect(r.redact("-42 rest")).toBe("-42 rest"); // 3 characters: not the secret
    expect(r.redact("rest s3c")).toBe("rest s3c");
    expect(r.redact("0123456789abcdef0123456789 tail")).toBe("*** tail");
    expect(r.redact("head abcdef0123456789")).toBe("head ***");
    expect(r.redact("oken-42")).toBe("***"); // both edges at once: the longest piece wins
  });

  it("walks structured values; numbers by their text; a key holding a secret is masked, no other (a secret map's keys: a new-user trial)", () => {
    const n = new Redactor();
    n.add(123456);
    expect(n.redact({ a: ["x 123456 y", 123456, true], "123456": "k", "456": "j" })).toEqual({ a: ["x *** y", "***", true], "***": "k", "456": "j" });
    const m = new Redactor();
    m.add({ MAPKEYsecret: "MAPVALsecret" }, true);
    expect(m.redact({ out: { MAPKEYsecret: "MAPVALsecret" }, secret_variables: ["m"] })).toEqual({ out: { "***": "***" }, secret_variables: ["m"] });
  });

  it("a secret that contains another is masked whole", () => {
    const n = new Redactor();
    n.add("pass");
    n.add("password-long");
    expect(n.redact("it was password-long!")).toBe("it was ***!");
  });

  it("a JSON-shaped multi-line secret: the whole, each line, each value reformatted; not its braces (the channels issue, item 6)", () => {
    const n = new Redactor();
    const creds = '{\n  "client_id": "svc-reviewer",\n  "client_secret": "Zq8-long-secret-value",\n  "port": 8443\n}';
    n.add(creds);
    expect(n.redact(`got ${creds} back`)).toBe("got *** back");
    // A step that prints one line, or the values in another shape.
    expect(n.redact('  "client_secret": "Zq8-long-secret-value",')).toBe("  ***");
    expect(n.redact("client_secret=Zq8-long-secret-value")).toBe("client_secret=***");
    expect(n.redact("id svc-reviewer on 8443")).toBe("id *** on ***");
    // Ordinary text keeps its braces, and keys alone are not the secret.
    expect(n.redact("{\n}\n},\nclient_id\nPATH=/usr/local/bin:/usr/bin")).toBe("{\n}\n},\nclient_id\nPATH=/usr/local/bin:/usr/bin");
  });

  it("is empty, and redaction the identity, until a secret is registered or an expression withheld", () => {
    const n = new Redactor();
    const v = { a: ["x"] };
    expect(n.empty).toBe(true);
    expect(n.redact(v)).toBe(v);
    expect(n.add("ab")).toBe(false);
    expect(n.empty).toBe(true);
    const w = new Redactor();
    w.withhold("w.hcl:1:1");
    expect(w.empty).toBe(false);
    expect(w.redact(v)).not.toBe(v);
    expect(w.redact(v)).toEqual(v);
  });

  it("add says false when a part is too short to mask (and registers the others); null is nothing to mask", () => {
    const n = new Redactor();
    expect(n.add(null)).toBe(true);
    expect(n.add(12)).toBe(false);
    expect(n.add(["ok-secret", "no"])).toBe(false);
    expect(n.add({ a: "abc", b: { c: "xyz9" } })).toBe(true);
    expect(n.redact("ok-secret abc xyz9 no 12")).toBe("*** *** *** no 12");
    expect(n.redact(12)).toBe(12);
  });

  it("a multi-line secret: each line of 3 or more characters with a letter or digit, trimmed, CRLF or LF", () => {
    const n = new Redactor();
    n.add("ab\r\n  a1b  \ncdef-line\n---\n12\n");
    expect(n.redact("a1b")).toBe("***");
    expect(n.redact(" cdef-line ")).toBe(" *** ");
    expect(n.redact("ab")).toBe("ab");
    expect(n.redact("--- 12")).toBe("--- 12");
  });

  it("a JSON-shaped secret's leaves: strings and numbers of 3 or more characters with a letter or digit; not its booleans; not when it is not JSON", () => {
    const n = new Redactor();
    n.add('["alpha", 12345, {"k": "beta9", "short": "ab", "dashes": "---"}, null, true]');
    expect(n.redact("alpha beta9 12345")).toBe("*** *** ***");
    expect(n.redact(12345)).toBe("***");
    expect(n.redact("ab --- true")).toBe("ab --- true");
    const bad = new Redactor();
    bad.add('{"not": json-at-all');
    expect(bad.redact("not json-at-all")).toBe("not json-at-all");
    expect(bad.redact('x {"not": json-at-all')).toBe("x ***");
    const plain = new Redactor();
    plain.add(' {"spaced": "leaf-value"} ');
    expect(plain.redact("leaf-value")).toBe("***");
  });

  it("a piece at an edge: exactly 4 characters is masked, the secret less one character too; a text shorter than 4 is left", () => {
    const n = new Redactor();
    n.add("s3cr3t-Token-42");
    expect(n.redact("n-42 rest")).toBe("*** rest");
    expect(n.redact("rest s3cr")).toBe("rest ***");
    expect(n.redact("3cr3t-Token-42 x")).toBe("*** x");
    expect(n.redact("x s3cr3t-Token-4")).toBe("x ***");
    expect(n.redact("-42")).toBe("-42");
    expect(n.redact("abc")).toBe("abc");
  });

  it("numbers are masked by their text; true and false are not registered (a new-user trial: masking them turned a failed run's success = false into \"***\", exit 0)", () => {
    const n = new Redactor();
    expect(n.add(true)).toBe(false);
    expect(n.redact([true, false, "true"])).toEqual([true, false, "true"]);
    n.add(48151623);
    expect(n.redact([48151623, "pin 48151623", 4815])).toEqual(["***", "pin ***", 4815]);
  });

  it("redactKeeping leaves a record's control fields as they are, and masks the rest (a secret \"success\" made every outcome unknown)", () => {
    const n = new Redactor();
    n.add("success");
    expect(n.redactKeeping({ outcome: "success", next: "b", output: { said: "success" }, detail: "it was success" })).toEqual({ outcome: "success", next: "b", output: { said: "***" }, detail: "it was ***" });
  });

  it("an expression that reads a secret has its error message withheld, its position kept; other messages are left", () => {
    const n = new Redactor();
    n.withhold("w.hcl:3:5");
    n.add("hunter22");
    expect(n.redact('w.hcl:3:5: cannot convert "hunter" to number')).toBe("w.hcl:3:5: the expression failed; its message is withheld because the expression reads a secret");
    expect(n.redact('w.hcl:3:6: cannot convert "x" to number')).toBe('w.hcl:3:6: cannot convert "x" to number');
    expect(n.redact("at w.hcl:3:5: hunter22")).toBe("at w.hcl:3:5: ***");
    expect(n.redact("dir/w.hcl:3:5 no colon after")).toBe("dir/w.hcl:3:5 no colon after");
    const only = new Redactor();
    only.withhold("a.yaml:1:2");
    expect(only.redact({ m: "a.yaml:1:2: boom", k: "a.yaml:1:2:boom" })).toEqual({ m: "a.yaml:1:2: the expression failed; its message is withheld because the expression reads a secret", k: "a.yaml:1:2:boom" });
  });

  it("with its extent, a message at any place inside the expression is withheld (an error names the failing part's place)", () => {
    const n = new Redactor();
    n.withhold("w.hcl:3:5", "w.hcl:4:10");
    const withheld = (at: string) => `${at}: the expression failed; its message is withheld because the expression reads a secret`;
    for (const at of ["w.hcl:3:5", "w.hcl:3:40", "w.hcl:4:1", "w.hcl:4:10"]) expect(n.redact(`${at}: bad "hunter"`)).toBe(withheld(at));
    for (const at of ["w.hcl:3:4", "w.hcl:4:11", "w.hcl:2:50", "x.hcl:3:6"]) expect(n.redact(`${at}: bad`)).toBe(`${at}: bad`);
  });
});
