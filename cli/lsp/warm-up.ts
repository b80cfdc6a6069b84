import { join } from "node:path";
import { compile, type Compilation, type UnitCache } from "../../compiler/index.js";
import type { ParseCache } from "../../compiler/load/read-module.js";

/**
 * The language server's warm-up (the issue "See and edit": diagnostics p99 < 50 ms after an
 * edit). The first edits after a file is opened were the slow ones (a 500-step file: 70–90 ms,
 * against 15–20 ms once warm): the incremental path (re-parse, splice, decode, resolve)
 * ran for the first time, interpreted, while V8 had compiled none of it. So once the
 * server has been idle for a moment after its first check (a user reading the file just
 * opened), it compiles a small workflow of its own, edited a character at a time, through
 * the same incremental path: one compile per event-loop turn (1–10 ms each; an edit that
 * arrives meanwhile waits for at most the one under way), and only while no check has run
 * for `IDLE_MS` (edits typed back to back are not slowed by it; measured: warming between
 * them made them slower). Its text lives only in memory (an overlay on a path under
 * a directory that does not exist), with caches of its own, and publishes nothing.
 * Measured (`node dist/bench/index.js --only lsp`): see the issue's note.
 */
export interface WarmUp {
  /** Starts warming once (later calls do nothing; none when the count is 0); `idleMs()` says how long no check has run (0 while one runs). */
  start(idleMs: () => number): void;
  /** Stops warming (shutdown). */
  stop(): void;
}

/**
 * How many warm-up compiles: about 0.7 s of work here, spread over idle turns;
 * `CRITERIA_LSP_WARM_UP=N` sets another count (0: no warm-up, to compare).
 */
export const WARM_UP_COMPILES = warmUpCount(process.env.CRITERIA_LSP_WARM_UP);

/** The warm-up count `value` asks for (a whole number ≥ 0, at most 5,000), else 240. */
export function warmUpCount(value: string | undefined): number {
  // At most 5,000: more only burns a core (found by a new-user trial: 99999999 never ended).
  return value !== undefined && /^\d+$/.test(value.trim()) ? Math.min(Number(value), 5000) : 240;
}

/** How long the server must have been idle before a warm-up compile, ms. */
export const IDLE_MS = 40;

/**
 * Makes the warm-up of a server whose workspace is `cwd`. `onEnd` hears how many compiles
 * ran and for how long (ms, from the first to the last), once, when warming ends or stops.
 * Never throws: a compile that throws ends the warm-up (it is an optimisation only).
 */
export function warmUp(cwd: string, onEnd: (done: number, ms: number, clean: boolean) => void): WarmUp {
  const dir = join(cwd, ".criteria-warm-up-not-on-disk");
  const texts = [{ path: join(dir, "warm.hcl"), text: warmHcl(16) }, { path: join(dir, "warm.yaml"), text: warmYaml(8) }];
  const caches = texts.map(() => ({ parseCache: new Map() as ParseCache, unitCache: new Map() as UnitCache }));
  let started = false;
  let stopped = false;
  let done = 0;
  let clean = true;
  let first = 0;
  const end = () => {
    if (stopped) return;
    stopped = true;
    // Never started (a count of 0, or shut down before the first check): nothing to say.
    if (!started) return;
    // Nothing of it is kept (its caches hold a parse and a resolution per module).
    for (const c of caches) {
      c.parseCache.clear();
      c.unitCache.clear();
    }
    onEnd(done, first === 0 ? 0 : performance.now() - first, clean);
  };
  const turn = (idleMs: () => number) => {
    if (stopped) return;
    if (done >= WARM_UP_COMPILES) return end();
    const idle = idleMs();
    if (idle < IDLE_MS) return void setTimeout(() => turn(idleMs), IDLE_MS - idle);
    if (first === 0) first = performance.now();
    // Three HCL compiles to one YAML: HCL is the common dialect and has the longer path.
    const k = done % 4 === 3 ? 1 : 0;
    const t = texts[k];
    // A character typed into the first step's input, as an editor's change: every block after it moves.
    const at = t.text.indexOf("typed") + 5;
    t.text = t.text.slice(0, at) + String.fromCharCode(97 + (done % 26)) + t.text.slice(at);
    compile(t.path, { cwd, overlay: new Map([[t.path, t.text]]), ...caches[k], graph: false }).then(
      (c: Compilation) => {
        done++;
        if (c.diagnostics.some((d) => d.severity === "error")) clean = false;
        setImmediate(() => turn(idleMs));
      },
      () => {
        clean = false;
        end();
      },
    );
  };
  return {
    start(idleMs) {
      if (started || WARM_UP_COMPILES === 0) return;
      started = true;
      setImmediate(() => turn(idleMs));
    },
    stop: end,
  };
}

/** A valid HCL workflow of `steps` shell steps using what users' files use: variables, locals, templates, functions, a `count` body, a branch. */
export function warmHcl(steps: number): string {
  const out = [
    `workflow "warm_up" {`,
    `  version       = "1"`,
    `  initial_state = "s0"`,
    `  target_state  = "done"`,
    `}`,
    `variable "rounds" {`,
    `  type    = "number"`,
    `  default = 2`,
    `}`,
    `variable "task" {`,
    `  type    = "string"`,
    `  default = "warm up"`,
    `}`,
    `local "branch" {`,
    `  value = "agent/\${lower(replace(var.task, " ", "-"))}"`,
    `}`,
    `policy {`,
    `  max_total_steps = 400`,
    `}`,
    `adapter "shell" "default" {`,
    `  config { shell = "/bin/sh" }`,
    `}`,
  ];
  for (let k = 0; k < steps; k++) {
    const next = k + 1 < steps ? `s${k + 1}` : "rounds";
    const prev = k > 0 ? ` \${steps.s${k - 1}.stdout}` : "";
    out.push(
      `step "s${k}" {`,
      `  target  = adapter.shell.default`,
      `  timeout = "30s"`,
      `  input { command = "echo ${k === 0 ? "typed" : k} \${local.branch}${prev}" }`,
      `  outcome "success" { next = "${next}" }`,
      `  outcome "failure" { next = "failed" }`,
      `}`,
    );
  }
  out.push(
    `step "rounds" {`,
    `  count = var.rounds`,
    `  workflow {`,
    `    step "work" {`,
    `      target = adapter.shell.default`,
    `      input { command = format("round %d of %d", each._idx + 1, each._total) }`,
    `      outcome "success" { next = "more" }`,
    `      outcome "failure" { next = "return" }`,
    `    }`,
    `    branch "more" {`,
    `      arm {`,
    `        when = each._last`,
    `        next = "return"`,
    `      }`,
    `      default { next = "_continue" }`,
    `    }`,
    `  }`,
    `  outcome "all_succeeded" { next = "done" }`,
    `  outcome "any_failed" { next = "failed" }`,
    `}`,
    `state "done" { terminal = true }`,
    `state "failed" {`,
    `  terminal = true`,
    `  success  = false`,
    `}`,
  );
  return out.join("\n") + "\n";
}

/** A valid YAML workflow of `steps` shell steps (the YAML dialect's forms: maps keyed by name, outcome shorthands). */
export function warmYaml(steps: number): string {
  const out = [
    `workflow:`,
    `  name: warm_up`,
    `  version: "1"`,
    `  initial_state: s0`,
    `  target_state: done`,
    `variables:`,
    `  task:`,
    `    type: string`,
    `    default: warm up`,
    `adapters:`,
    `  shell.default:`,
    `    config:`,
    `      shell: /bin/sh`,
    `steps:`,
  ];
  for (let k = 0; k < steps; k++) {
    const next = k + 1 < steps ? `s${k + 1}` : "done";
    out.push(
      `  s${k}:`,
      `    target: adapter.shell.default`,
      `    input:`,
      `      command: "echo ${k === 0 ? "typed" : k} \${var.task}${k > 0 ? ` \${steps.s${k - 1}.stdout}` : ""}"`,
      `    outcomes:`,
      `      success: ${next}`,
      `      failure: failed`,
    );
  }
  out.push(`states:`, `  done:`, `    terminal: true`, `  failed:`, `    terminal: true`, `    success: false`);
  return out.join("\n") + "\n";
}
