import type { CstBody } from "./cst.js";
import type { Problem } from "./diagnostics.js";
import type { TokenList } from "./tokens.js";

/**
 * An argument and a block of one name in one body (`input = { … }` beside `input { … }`),
 * at any depth: HCL's syntax takes both, and its JSON form keeps the argument (blocks are
 * grouped first, then arguments replace them, as hcl2json does), so the block would be
 * dropped without a word. A schema-level error, as HCL's own decoding makes it; kept out of
 * the parser, whose verdicts are checked against hcl2json's. Found by a trial of the Go
 * tool's language (the block's input was silently ignored).
 * @returns one `conflicting_fields` problem per clash, at the later of the two, the earlier named
 */
export function argumentBlockClashes(body: CstBody, tokens: TokenList, lineOf: (offset: number) => number): Problem[] {
  const out: Problem[] = [];
  const visit = (b: CstBody) => {
    const attrs = new Map<string, number>();
    for (const item of b.items) if (item.kind === "attribute" && !attrs.has(item.name)) attrs.set(item.name, item.nameToken);
    const reported = new Set<string>();
    for (const item of b.items) {
      if (item.kind !== "block") continue;
      visit(item.body);
      const attr = attrs.get(item.type);
      if (attr === undefined || reported.has(item.type)) continue;
      reported.add(item.type);
      const [first, second] = attr < item.typeToken ? [attr, item.typeToken] : [item.typeToken, attr];
      out.push({
        code: "conflicting_fields",
        start: tokens.starts[second],
        end: tokens.ends[second],
        message: `"${item.type}" is set twice: as an argument (${item.type} = …) and as a block (${item.type} { … }), also on line ${lineOf(tokens.starts[first])}`,
        hint: `keep one of them; ${item.type} = { … } and ${item.type} { … } say the same`,
        related: [{ message: "also set here", start: tokens.starts[first], end: tokens.ends[first] }],
      });
    }
  };
  visit(body);
  return out.sort((a, b) => a.start - b.start);
}
