import { SECTION_KEYWORDS } from "./lower-hcl.js";

/**
 * Names the declaration a canonical-document pointer belongs to, for messages:
 * `/steps/loop/workflow/steps/execute/input` → `step "loop" > step "execute"`.
 */


/** Splits an RFC 6901 pointer into unescaped segments. */
export function pointerSegments(ptr: string): string[] {
  if (ptr === "") return [];
  return ptr
    .slice(1)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** `step "a" > outcome "ok"`, or `workflow` at the root; empty string for the document. */
export function describePointer(ptr: string): string {
  const segs = pointerSegments(ptr);
  const parts: string[] = [];
  for (let i = 0; i < segs.length; i++) {
    const noun = SECTION_KEYWORDS[segs[i]];
    if (noun && i + 1 < segs.length) {
      parts.push(`${noun} "${segs[i + 1]}"`);
      i++;
    } else if (segs[i] === "workflow" && i === segs.length - 1) parts.push("workflow");
    else if (segs[i] === "workflow" && parts.length === 0) parts.push("workflow header");
    else if (segs[i] === "policy") parts.push("policy");
  }
  return parts.join(" > ");
}
