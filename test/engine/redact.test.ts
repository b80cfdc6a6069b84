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

  it("walks structured values, keeping keys; numbers and booleans by their text", () => {
    const n = new Redactor();
    n.add(123456);
    expect(n.redact({ a: ["x 123456 y", 123456, true], "123456": "k" })).toEqual({ a: ["x *** y", "***", true], "123456": "k" });
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
});
