import { pathToFileURL } from "node:url";
import { CODES, ALL_CODES } from "./codes.js";
import type { Diagnostic } from "./diagnostic.js";
import type { Range } from "./range.js";

/** A SARIF artifact URI: relative paths as they are (with `/`), absolute ones as `file://` URIs. */
function artifactUri(file: string): string {
  const p = file.split("\\").join("/");
  // A relative URI reference: each segment percent-encoded (`sp ace.hcl` → `sp%20ace.hcl`).
  return p.startsWith("/") ? pathToFileURL(p).href : p.split("/").map(encodeURIComponent).join("/");
}

/** A range as a SARIF physical location: 1-based lines, UTF-16 columns. */
function physicalLocation(r: Range): object {
  return {
    artifactLocation: { uri: artifactUri(r.file) },
    region: { startLine: r.start.line, startColumn: r.start.utf16Column ?? r.start.column, endLine: r.end.line, endColumn: r.end.utf16Column ?? r.end.column },
  };
}

/**
 * Builds a SARIF 2.1.0 log (for GitHub code scanning) from sorted diagnostics: one
 * run, one rule per code of the closed table, one result per diagnostic with a
 * physical location (and its notes as `relatedLocations`) whose region columns are UTF-16 code units, as `columnKind`
 * states (SARIF's default; the text, JSON and GitHub output count graphemes as HCL does).
 *
 * @param version the tool version, for `tool.driver.version`
 */
export function toSarif(ds: readonly Diagnostic[], version: string): object {
  return {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "criteria",
            version,
            informationUri: "https://github.com/criteria-dev/criteria",
            rules: ALL_CODES.map((id) => ({
              id,
              shortDescription: { text: CODES[id].doc },
              defaultConfiguration: { level: CODES[id].severity },
            })),
          },
        },
        columnKind: "utf16CodeUnits",
        results: ds.map((d) => ({
          ruleId: d.code,
          ruleIndex: ALL_CODES.indexOf(d.code),
          level: d.severity,
          message: { text: d.hint ? `${d.message} (${d.hint})` : d.message },
          locations: [{ physicalLocation: physicalLocation(d.range) }],
          // The text output's notes ("first declared here"): each a location with its message (SARIF §3.27.22).
          ...(d.related ? { relatedLocations: d.related.map((r, i) => ({ id: i, physicalLocation: physicalLocation(r.range), message: { text: r.message } })) } : {}),
        })),
      },
    ],
  };
}
