import type { Position as LspPosition, Range as LspRange } from "vscode-languageserver/node.js";
import type { TextDocument } from "vscode-languageserver-textdocument";
import type { Range } from "../../compiler/diagnostics/range.js";
import type { TextEdit } from "../../compiler/load/text-edit.js";

/**
 * Positions between the text the last decoded compilation of a document read and the
 * document's text now, through each version's change since (`edits`, oldest first): the
 * language server answers definition, hover and completion from that compilation while the
 * text does not decode (a line being typed), and a place the edits since moved must be moved
 * with them (found by a new-user trial: after lines were added above, definition answered with
 * where the declaration had been). A place outside each change maps by its difference in
 * length; one inside a change has no counterpart (undefined: no answer rather than a wrong
 * one; a version made of several changes at once counts as one change spanning them).
 */
export class StaleSpec {
  constructor(
    private readonly edits: readonly TextEdit[],
    private readonly now: TextDocument,
    /** The old text's positions from offsets: the compiler's ranges carry both. */
    private readonly oldPosition: (offset: number) => LspPosition,
  ) {}

  /** Where `at` (in the text now) was in the old text; undefined inside what changed. */
  toOld(at: LspPosition): LspPosition | undefined {
    let o: number | undefined = this.now.offsetAt(at);
    for (const e of [...this.edits].reverse()) {
      if (o === undefined) return undefined;
      o = o < e.start ? o : o >= e.newEnd ? o - (e.newEnd - e.oldEnd) : undefined;
    }
    return o === undefined ? undefined : this.oldPosition(o);
  }

  /** Where range `r` of the old text (the compiler's: its offsets) is now; undefined when it touches what changed. */
  toNow(r: Range): LspRange | undefined {
    // An end at a change's start stays; a start there moves with what was inserted before it.
    const move = (from: number, end: boolean) => {
      let o: number | undefined = from;
      for (const e of this.edits) {
        if (o === undefined) return undefined;
        o = (end ? o <= e.start : o < e.start) ? o : o >= e.oldEnd ? o + (e.newEnd - e.oldEnd) : undefined;
      }
      return o;
    };
    const start = move(r.start.offset, false);
    const end = move(r.end.offset, true);
    return start === undefined || end === undefined ? undefined : { start: this.now.positionAt(start), end: this.now.positionAt(end) };
  }
}
