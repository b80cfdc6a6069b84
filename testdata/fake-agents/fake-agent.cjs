#!/usr/bin/env node
// A stand-in for the claude, codex and copilot CLIs in tests: prints output shaped like the
// CLI it is named after, answering with the first outcome the prompt allows
// ("... exactly one of: a, b") or $FAKE_OUTCOME. No network, no model.
const fs = require("node:fs");
const path = require("node:path");
const cli = path.basename(process.argv[1]);
let stdin = "";
try { stdin = fs.readFileSync(0, "utf8"); } catch {}
const prompt = [stdin, ...process.argv.slice(2)].join("\n");
const m = /exactly one of: ([^\n.]+)/.exec(prompt);
const outcome = process.env.FAKE_OUTCOME ?? (m ? m[1].split(",")[0].trim() : "success");
const answer = `Fake ${cli} answer.\nOUTCOME: ${outcome}`;
const out = (o) => process.stdout.write(JSON.stringify(o) + "\n");
if (cli === "claude") out({ type: "result", subtype: "success", is_error: false, result: answer, session_id: "fake", num_turns: 1 });
else if (cli === "codex") {
  out({ type: "thread.started", thread_id: "fake" });
  out({ type: "item.completed", item: { id: "item_0", type: "agent_message", text: answer } });
  out({ type: "turn.completed", usage: { input_tokens: 1, cached_input_tokens: 0, output_tokens: 1 } });
} else {
  out({ type: "assistant.message", data: { content: answer } });
}
