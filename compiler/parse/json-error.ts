import { ParseErrorCode, visit } from "jsonc-parser";

/** Where strict JSON text first goes wrong: a UTF-16 offset and length, and what is wrong there, in one line. */
export interface JsonSyntaxError {
  offset: number;
  length: number;
  message: string;
}

/**
 * The first syntax error of strict JSON text (no comments, no trailing commas), found
 * with `jsonc-parser`'s scanner, or undefined when it finds none. `JSON.parse` stays the
 * judge of what is valid; this says where and what, because Node 20's messages carry no
 * position for a bad token (`Unexpected token ']', "…" is not valid JSON`, the text
 * around it quoted with its line breaks), so a trailing comma on line 3 was reported at
 * 1:1 over three lines (found by a new-user trial of CI use).
 *
 * @param text the whole file
 */
export function jsonSyntaxError(text: string): JsonSyntaxError | undefined {
  let found: JsonSyntaxError | undefined;
  visit(
    text,
    {
      onError(error, offset, length) {
        if (found) return;
        const token = text.slice(offset, offset + length);
        // `[1, 2,]` and `{"a": 1,}`: the comma before the bracket is what is wrong.
        const before = text.slice(0, offset).trimEnd();
        const trailing = (token === "]" || token === "}") && before.endsWith(",") && (error === ParseErrorCode.ValueExpected || error === ParseErrorCode.PropertyNameExpected);
        found = trailing
          ? { offset: before.length - 1, length: 1, message: `a trailing comma before "${token}" is not allowed in JSON` }
          : { offset, length, message: describe(error, token) };
      },
    },
    { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false },
  );
  return found;
}

function describe(error: ParseErrorCode, token: string): string {
  const short = token.length > 24 ? `${token.slice(0, 24)}…` : token;
  // A string token is shown as written (it has its quotes); anything else quoted.
  const seen = token === "" ? "the end of the text" : token.startsWith('"') ? short : JSON.stringify(short);
  switch (error) {
    case ParseErrorCode.InvalidSymbol:
      return `unexpected ${seen}`;
    case ParseErrorCode.InvalidNumberFormat:
      return `invalid number ${seen}`;
    case ParseErrorCode.PropertyNameExpected:
      return `a quoted key is expected, found ${seen}`;
    case ParseErrorCode.ValueExpected:
      return `a value is expected, found ${seen}`;
    case ParseErrorCode.ColonExpected:
      return `":" is expected after the key, found ${seen}`;
    case ParseErrorCode.CommaExpected:
      return `"," is expected between members, found ${seen}`;
    case ParseErrorCode.CloseBraceExpected:
      return `"}" is expected, found ${seen}`;
    case ParseErrorCode.CloseBracketExpected:
      return `"]" is expected, found ${seen}`;
    case ParseErrorCode.EndOfFileExpected:
      return `the document has ended; unexpected ${seen} after it`;
    case ParseErrorCode.InvalidCommentToken:
      return "comments are not allowed in JSON";
    case ParseErrorCode.UnexpectedEndOfComment:
      return "the text ends inside a comment";
    case ParseErrorCode.UnexpectedEndOfString:
      return "the text ends inside a string (a closing quote is missing)";
    case ParseErrorCode.UnexpectedEndOfNumber:
      return "the text ends inside a number";
    case ParseErrorCode.InvalidUnicode:
      return "invalid \\u escape (four hexadecimal digits are expected)";
    case ParseErrorCode.InvalidEscapeCharacter:
      return "invalid escape in a string";
    case ParseErrorCode.InvalidCharacter:
      return "invalid character in a string (a control character such as a tab or a line break must be escaped)";
    default:
      return `unexpected ${seen}`;
  }
}
