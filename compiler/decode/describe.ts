import type { JsonObject } from "../parse/document.js";
import { SECTION_KEYWORDS } from "./lower-hcl.js";

/** Splits an RFC 6901 pointer into unescaped segments. */
export function pointerSegments(ptr: string): string[] {
  if (ptr === "") return [];
  return ptr
    .slice(1)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/**
 * Names the declaration a canonical-document pointer belongs to, for messages:
 * `/steps/loop/workflow/steps/execute/input` → `step "loop" > step "execute"`, or
 * `workflow` at the root; empty string for the document. Given the document, a branch
 * written as a `switch` is named so, and an arm of it by its block and number
 * (`switch "s" > match 2`; found by a trial of the Go tool's language: its switches were
 * called branches with "arms").
 */
export function describePointer(ptr: string, doc?: JsonObject): string {
  const segs = pointerSegments(ptr);
  const parts: string[] = [];
  let node: unknown = doc;
  const down = (seg: string) => {
    node = node !== null && typeof node === "object" ? (node as Record<string, unknown>)[seg] : undefined;
  };
  let inSwitch: boolean | undefined;
  for (let i = 0; i < segs.length; i++) {
    const noun = SECTION_KEYWORDS[segs[i]];
    down(segs[i]);
    if (noun && i + 1 < segs.length) {
      down(segs[i + 1]);
      const isSwitch = noun === "branch" && (node as { switch?: unknown } | undefined)?.switch === true;
      inSwitch = noun === "branch" ? isSwitch : undefined;
      parts.push(`${isSwitch ? "switch" : noun} "${segs[i + 1]}"`);
      i++;
    } else if (segs[i] === "arms" && inSwitch !== undefined && i + 1 < segs.length && /^\d+$/.test(segs[i + 1])) {
      parts.push(`${inSwitch ? "match" : "arm"} ${Number(segs[i + 1]) + 1}`);
      down(segs[i + 1]);
      i++;
    } else if (segs[i] === "default" && inSwitch !== undefined) {
      // A branch's default written as a block (`default: { nxt: deploy }`): named so, not as the branch (found by a new-user trial).
      parts.push("default");
    } else if (segs[i] === "expects" && i === 1 && parts.length > 0) {
      // The header's expects (`expects: { adapter: [...] }`): named so (found by a new-user trial: "workflow header: unknown field").
      parts.push("expects");
    } else if (segs[i] === "workflow" && i === segs.length - 1) parts.push("workflow");
    else if (segs[i] === "workflow" && parts.length === 0) parts.push("workflow header");
    else if (segs[i] === "policy") parts.push("policy");
  }
  return parts.join(" > ");
}
