/** C0 controls but tab, and DEL; line feed too unless kept. */
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/g;
const CONTROL_BUT_LF = /[\x00-\x08\x0b-\x1f\x7f]/g;
/** C1 controls (U+009B is a CSI to some terminals) and the bidirectional overrides and isolates ("Trojan Source"). */
const UNSHOWN = /[\x80-\x9f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `s` as a terminal or a CI log may be given it: control characters from a source or a
 * name (ESC, BEL, CR: `\x1b[2J` cleared the screen of whoever ran `criteria validate`)
 * shown as their Unicode control pictures (␛, ␇, ␍, ␡), as rustc shows them; C1 controls
 * and bidirectional overrides as U+FFFD (rustc's for the latter). A line feed too (␊),
 * unless `keepLineFeeds`: a diagnostic's line is one line, and a name holding
 * `\n::warning file=…` printed a line GitHub Actions runs as a workflow command (found by
 * a new-user trial). Each character stays one UTF-16 unit and becomes one column, so a
 * caret measured on the result is placed right. Text output only: JSON keeps the exact
 * strings.
 */
export function shown(s: string, keepLineFeeds = false): string {
  return s.replace(keepLineFeeds ? CONTROL_BUT_LF : CONTROL, (ch) => (ch === "\x7f" ? "\u2421" : String.fromCharCode(0x2400 + ch.charCodeAt(0)))).replace(UNSHOWN, "\ufffd");
}
