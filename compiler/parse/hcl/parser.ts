/**
 * The structural parser: the file's body, attributes, blocks and one-line blocks.
 *
 * Source: HCL native syntax specification (`hclsyntax/spec.md`), "Structural Elements":
 * `Body = (Attribute | Block | OneLineBlock)*`, `Attribute = Identifier "=" Expression
 * Newline`, `Block = Identifier (StringLit|Identifier)* "{" Newline Body "}" Newline`,
 * `OneLineBlock = Identifier (StringLit|Identifier)* "{" (Identifier "=" Expression)? "}"
 * Newline`; each attribute name at most once per body. Messages and recovery follow the
 * reference parser (`hclsyntax/parser.go` ParseBody, finishParsingBodyAttribute,
 * finishParsingBodyBlock, parseSingleAttrBody): after a broken item the parser skips to
 * the next line outside brackets and goes on, so one mistake gives one message.
 *
 * Shapes: `parseFile()` returns the file's `CstBody`; problems accumulate on the cursor.
 * Never throws.
 */
import { NO_COMMENTS, type CstAttribute, type CstBlock, type CstBody, type CstItem } from "./cst.js";
import { attachComments } from "./comments.js";
import { ExpressionParser } from "./expressions.js";
import { parseQuotedLabel } from "./templates.js";
import { T } from "./tokens.js";

/**
 * Parses a whole file: `new HclParser(file, scanTokens(file.text)).parseFile()` gives the
 * body; the problems found are in `problems`.
 */
export class HclParser extends ExpressionParser {
  /** Parses the whole file. */
  parseFile(): CstBody {
    return this.parseBody(-1);
  }

  /**
   * The items of a body up to the `}` closing `open` (or to the end of the file when
   * `open` is -1; the `}` is consumed).
   */
  private parseBody(open: number): CstBody {
    const items: CstItem[] = [];
    const attrs = new Map<string, CstAttribute>();
    const end = open < 0 ? T.EOF : T.CBrace;
    const firstToken = open < 0 ? 0 : open + 1;
    let closeToken = -1;
    for (;;) {
      const i = this.peekIndex();
      const k = this.kinds[i];
      if (k === end) {
        closeToken = this.read();
        break;
      }
      if (k === T.Newline) {
        this.read();
        continue;
      }
      if (k === T.Ident) {
        const item = this.parseBodyItem();
        if (!item) continue;
        items.push(item);
        if (item.kind === "attribute") {
          const first = attrs.get(item.name);
          if (first) {
            const line = this.file.position(this.starts[first.nameToken]).line;
            this.report({
              code: "syntax_error",
              start: this.starts[item.nameToken],
              end: this.ends[item.nameToken],
              message: `attribute redefined: the argument "${item.name}" was already set on line ${line}`,
              hint: "each argument may be set only once in a body; remove one of them",
              related: [{ message: "first set here", start: this.starts[first.nameToken], end: this.ends[first.nameToken] }],
            });
          } else attrs.set(item.name, item);
        }
        continue;
      }
      if (k === T.EOF) {
        // Only inside a block: the file ended before its `}`.
        this.error(this.starts[open], this.ends[open], 'unclosed block: there is no "}" for this "{" before the end of the file', "this may also come from a brace missing or extra elsewhere in the block");
        closeToken = i;
        break;
      }
      const bad = this.read();
      if (k === T.OQuote) {
        this.errorAt(bad, "invalid argument name: argument names must not be quoted", "write the name without quotes: name = value");
      } else if (k === T.CBrace && open < 0) {
        this.errorAt(bad, 'unexpected "}": there is no block for it to close', "remove it, or look for a block closed too early");
      } else {
        this.errorAt(bad, `argument or block definition required: expected an argument name or a block type, but found ${this.describe(bad)}`, "each line holds name = value, or a block: type \"label\" { ... }");
      }
      if (this.recoverAfterBodyItem()) this.recovery = false;
    }
    const body: CstBody = { items, dangling: [] };
    const lastToken = closeToken >= 0 ? closeToken - 1 : this.eof - 1;
    attachComments(this.tokens, body, firstToken, lastToken);
    return body;
  }

  /** An attribute or block starting with the identifier that is next. */
  private parseBodyItem(): CstItem | null {
    const ident = this.read();
    const next = this.peekIndex();
    const nk = this.kinds[next];
    if (nk === T.Equal) return this.finishAttribute(ident, false);
    if (nk === T.OQuote || nk === T.OBrace || nk === T.Ident) return this.finishBlock(ident);
    const name = this.tokenText(ident);
    this.error(
      this.starts[ident],
      this.ends[ident],
      `argument or block definition required: expected "=" after "${name}" (an argument) or a label or "{" (a block), but found ${this.describe(next)}`,
      `to set an argument, write ${name} = value`,
      this.isBadToken(next) ? next : -1,
    );
    if (this.recoverAfterBodyItem()) this.recovery = false;
    return null;
  }

  /** `name = expr` with the `=` next; ends with a line break unless `singleLine`. */
  private finishAttribute(ident: number, singleLine: boolean): CstAttribute {
    const eq = this.read();
    const before = this.errorsSeen;
    const expr = this.parseExpression();
    const lastToken = this.prev();
    if (this.recovery && this.errorsSeen > before) {
      if (!singleLine && this.recoverAfterBodyItem()) this.recovery = false;
    } else if (!singleLine) {
      const end = this.peekIndex();
      const k = this.kinds[end];
      if (k !== T.Newline && k !== T.EOF) {
        if (k === T.Comma) {
          this.errorAt(end, "unexpected comma after argument: arguments are separated by line breaks, not commas", "put each argument on its own line");
        } else {
          this.errorAt(end, `missing newline after argument: an argument definition must end with a line break, but found ${this.describe(end)}`, "put the next argument or block on its own line");
        }
        if (this.recoverAfterBodyItem()) this.recovery = false;
      } else {
        this.read();
      }
    }
    return {
      kind: "attribute",
      name: this.tokenText(ident),
      nameToken: ident,
      equalsToken: eq,
      expr,
      firstToken: ident,
      lastToken,
      comments: NO_COMMENTS,
    };
  }

  /** `type label… { body }` with the first label or `{` next. */
  private finishBlock(ident: number): CstBlock {
    const type = this.tokenText(ident);
    const labels: string[] = [];
    const labelTokens: number[] = [];
    const block: CstBlock = {
      kind: "block",
      type,
      typeToken: ident,
      labels,
      labelTokens,
      openToken: -1,
      closeToken: -1,
      body: { items: [], dangling: [] },
      firstToken: ident,
      lastToken: ident,
      comments: NO_COMMENTS,
    };
    let open = -1;
    for (;;) {
      const t = this.peekIndex();
      const k = this.kinds[t];
      if (k === T.OBrace) {
        open = this.read();
        break;
      }
      if (k === T.OQuote) {
        labelTokens.push(t);
        labels.push(parseQuotedLabel(this).value);
        continue;
      }
      if (k === T.Ident) {
        labelTokens.push(this.read());
        labels.push(this.tokenText(t));
        continue;
      }
      if (k === T.Equal) {
        this.errorAt(t, 'invalid block definition: the equals sign "=" makes an argument, which has no labels', `to set an argument, write ${type} = value; to define a block, remove the "="`);
      } else if (k === T.Newline || k === T.EOF) {
        const label = labelTokens.length === 1 ? this.text.slice(this.starts[labelTokens[0]], this.ends[this.prev()]) : "";
        this.error(
          this.starts[t],
          Math.max(this.ends[t], this.starts[t] + (k === T.EOF ? 0 : 1)),
          'invalid block definition: a block needs "{", on the same line as its type and labels',
          label ? `to set an argument, write ${type} = ${label}; to define a block, add { … }` : `to define a block, write ${type} { … }`,
        );
      } else {
        this.errorAt(t, `invalid block definition: expected a quoted label or "{", but found ${this.describe(t)}`, "a block is written type \"label\" { ... }: quote its labels");
      }
      block.lastToken = this.prev();
      if (this.recoverAfterBodyItem()) this.recovery = false;
      return block;
    }
    block.openToken = open;
    if (!this.enter(open)) return block;
    const first = this.peek();
    if (first === T.Newline || first === T.EOF || first === T.CBrace) {
      block.body = this.parseBody(open);
    } else {
      block.body = this.parseSingleAttrBody(open);
      const t = this.peekIndex();
      const k = this.kinds[t];
      if (k === T.CBrace) {
        this.read();
      } else if (k === T.Comma) {
        this.errorAt(t, "invalid single-line block: a single-line block can hold only one argument", "put each argument on its own line inside the block");
        this.recover(T.CBrace);
      } else if (k === T.Newline) {
        this.errorAt(
          t,
          'invalid single-line block: an argument on the same line as the block\'s "{" makes a single-line block, which must be closed on that line',
          'put the "}" right after the argument, or start the argument on the next line',
        );
        this.recover(T.CBrace);
      } else {
        if (k === T.EOF) this.errorAt(open, 'unclosed block: there is no "}" for this "{" before the end of the file', "add the missing \"}\" (a brace missing or extra elsewhere in the block can cause this too)");
        else this.errorAt(t, `invalid single-line block: expected "}" right after the argument, but found ${this.describe(t)}`, "a single-line block holds one argument: write the block over several lines, one argument each");
        this.recover(T.CBrace);
      }
    }
    this.leave();
    const close = this.prev();
    if (this.kinds[close] === T.CBrace) block.closeToken = close;
    block.lastToken = close;
    const eol = this.peekIndex();
    const ek = this.kinds[eol];
    if (ek === T.Newline || ek === T.EOF) {
      if (ek === T.Newline) this.read();
    } else {
      this.errorAt(eol, `missing newline after block definition: a block must end with a line break, but found ${this.describe(eol)}`, "put the next argument or block on its own line");
      if (this.recoverAfterBodyItem()) this.recovery = false;
    }
    return block;
  }

  /** The body of a one-line block `b { name = expr }` after its `{`. */
  private parseSingleAttrBody(open: number): CstBody {
    const body: CstBody = { items: [], dangling: [] };
    const ident = this.peekIndex();
    if (this.kinds[ident] !== T.Ident) {
      this.read();
      this.errorAt(ident, `argument definition required: expected an argument name, but found ${this.describe(ident)}`, "each line holds name = value");
      this.recoverAfterBodyItem();
      return body;
    }
    this.read();
    const next = this.peekIndex();
    const nk = this.kinds[next];
    const name = this.tokenText(ident);
    if (nk === T.Equal) {
      body.items.push(this.finishAttribute(ident, true));
    } else if (nk === T.OQuote || nk === T.OBrace || nk === T.Ident) {
      this.error(
        this.starts[ident],
        this.ends[next],
        "argument definition required: a single-line block can contain only one argument, not a nested block",
        `to define a nested block, put it on a line of its own inside its parent block; if you meant an argument, write ${name} = …`,
      );
      this.recoverAfterBodyItem();
    } else {
      this.error(this.starts[ident], this.ends[ident], `argument definition required: expected "=" after "${name}", but found ${this.describe(next)}`, `to set an argument, write ${name} = value`, this.isBadToken(next) ? next : -1);
      this.recoverAfterBodyItem();
    }
    attachComments(this.tokens, body, open + 1, this.prev());
    return body;
  }
}
