import { pathToFileURL } from "node:url";
import { CODES, ALL_CODES } from "./codes.js";
import type { Diagnostic } from "./diagnostic.js";

/** A SARIF artifact URI: relative paths as they are (with `/`), absolute ones as `file://` URIs. */
function artifactUri(file: string): string {
  const p = file.split("\\").join("/");
  // A relative URI reference: each segment percent-encoded (`sp ace.hcl` → `sp%20ace.hcl`).
  return p.startsWith("/") ? pathToFileURL(p).href : p.split("/").map(encodeURIComponent).join("/");
}

/**
 * Builds a SARIF 2.1.0 log (for GitHub code scanning) from sorted diagnostics: one
 * run, one rule per code of the closed table, one result per diagnostic with a
 * physical location whose region columns are UTF-16 code units, as `columnKind`
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
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: artifactUri(d.range.file) },
                region: {
                  startLine: d.range.start.line,
                  startColumn: d.range.start.utf16Column ?? d.range.start.column,
                  endLine: d.range.end.line,
                  endColumn: d.range.end.utf16Column ?? d.range.end.column,
                },
              },
            },
          ],
        })),
      },
    ],
  };
}
