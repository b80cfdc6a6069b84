/** What the fmt tests share: comments of a file, the older forms' pattern, a capturing Io. */
import type { Io } from "../../cli.js";

/** Every comment of HCL text (`#`, `//`, block comments), near enough for these files. */
export const COMMENT = /(#|\/\/)[^\n]*|\/\*[\s\S]*?\*\//g;

/** The comments of `text`, as written, sorted: equal before and after a rewrite that keeps them all. */
export function comments(text: string): string[] {
  return (text.match(COMMENT) ?? []).sort();
}

/** An older form left in `text` outside its comments (`transition_to =`, a labelled header, a branch or its arm, a v0.3 switch arm, a quoted type). */
export const OLDER_FORM = /\btransition_to\s*=|^workflow\s+"|^\s*branch\s+"|^\s*arm\s*\{|^\s*condition\s*\{|\btype\s*=\s*"(string|number|bool)"/m;

/** An Io that keeps what a command printed. */
export function io(): Io & { stdout: string; stderr: string } {
  const o = { stdout: "", stderr: "", color: false, isTTY: false, env: {}, out: (s: string) => void (o.stdout += s), err: (s: string) => void (o.stderr += s) };
  return o;
}
