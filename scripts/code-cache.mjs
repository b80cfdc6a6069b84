// Build step, run by scripts/bundle.mjs in a fresh node: writes V8's code cache for the
// bundle (dist/bundle/criteria.cjs.cache) after running the commands a cold start
// serves most — `validate` and `compile` of an HCL and a YAML example — so the cache
// holds the functions they compile, not only the top level. Output is discarded.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { BUNDLE, CODE_CACHE, CODE_CACHE_CRC, checksums, loadBundle } from "../bin/load-bundle.cjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { exports, script } = loadBundle();
const io = { out() {}, err() {}, color: false, isTTY: false, env: {} };
const examples = [join(root, "examples", "review_loop"), join(root, "bench", "fixtures", "agent_in_body.yaml")];
for (const argv of [["validate", ...examples]]) {
  const code = await exports.main(argv, io);
  if (code !== 0) throw new Error(`code cache: criteria ${argv.join(" ")} exited ${code}`);
}
const cache = script.createCachedData();
writeFileSync(CODE_CACHE, cache);
// What bin/load-bundle.cjs checks before trusting the cache (V8 does not checksum it).
writeFileSync(CODE_CACHE_CRC, JSON.stringify(checksums(readFileSync(BUNDLE), cache)) + "\n");
