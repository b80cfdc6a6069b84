// Build step, two assets:
// 1. schema/workflow.schema.json compiled into a standalone ajv validator
//    (dist/schema/validate-workflow.cjs): no schema compilation at start-up (~90 -> ~7 ms;
//    bench/cold-start.ts). The options must match compiler/decode/check-schema.ts.
// 2. For the tests only: hcl2json's WebAssembly module decompressed once
//    (dist/hcl2json.wasm), the differential oracle of our HCL parser
//    (test/parse/oracle/hcl2json.ts). Skipped when the devDependency is not installed.
import Ajv from "ajv";
import standaloneCode from "ajv/dist/standalone/index.js";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { gunzipSync } from "node:zlib";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const schema = JSON.parse(readFileSync(join(root, "schema", "workflow.schema.json"), "utf8"));
const ajv = new Ajv.default({ allErrors: true, verbose: true, strict: false, code: { source: true } });
const validate = ajv.compile(schema);
const out = join(root, "dist", "schema", "validate-workflow.cjs");
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, standaloneCode.default(ajv, validate));

let pkg;
try {
  pkg = dirname(createRequire(import.meta.url).resolve("@cdktn/hcl2json/package.json"));
} catch {
  pkg = undefined; // a production install: no oracle needed
}
if (pkg) writeFileSync(join(root, "dist", "hcl2json.wasm"), gunzipSync(readFileSync(join(pkg, "main.wasm.gz"))));
