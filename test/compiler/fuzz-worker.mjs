// The fuzz test's worker (test/compiler/fuzz.test.ts): compiles one file per message with
// the built compiler (dist/, fresh: the test run's global setup builds it) and answers
// with what the test checks. A worker can be terminated mid-compile, so a hang is caught
// even when it is a synchronous loop.
import { parentPort } from "node:worker_threads";
import { compile } from "../../dist/compiler/index.js";

parentPort.on("message", async ({ id, file }) => {
  try {
    const c = await compile(file);
    // The text of every file a diagnostic is in (a case may be read with files it reaches).
    const texts = {};
    for (const d of c.diagnostics) {
      const text = c.sources.get(d.range.file)?.text;
      if (text !== undefined) texts[d.range.file] = text;
    }
    parentPort.postMessage({
      id,
      texts,
      hasGraph: c.graph !== undefined,
      diagnostics: c.diagnostics.map((d) => ({ code: d.code, severity: d.severity, message: d.message, range: d.range, known: c.sources.has(d.range.file) })),
    });
  } catch (e) {
    parentPort.postMessage({ id, thrown: String(e?.stack ?? e) });
  }
});
