import { existsSync, statSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { Option, type Command } from "commander";
import { toJsonReport } from "../compiler/diagnostics/format-json.js";
import { formatText } from "../compiler/diagnostics/format-text.js";
import type { Graph } from "../compiler/build/graph.js";
import { suggest } from "../compiler/diagnostics/did-you-mean.js";
import { compile, type Compilation } from "../compiler/index.js";
import { sourceHash } from "../compiler/load/source-hash.js";
import { displayPath, workflowFiles } from "../compiler/load/workflow-files.js";
import type { RunEnd, RunEvent } from "../engine/index.js";
import type { LeaseHolder } from "../engine/journal/journal.js";
import { BROKER_HELP, brokerOf } from "./broker-option.js";
import { compileOptions, pathArgument, rootOption } from "./compile-options.js";
import { CliError, echoed, EXIT, type Io } from "./io.js";
import { registerJournalCommands } from "./journal-commands.js";
import { damageMessage, endedAs, noRun, openJournal, placeOf, runArgument, STORE_HELP, storeFlag } from "./journal-place.js";
import { renderEvent } from "./render-events.js";
import { checkInput, parseInput, parseVars } from "./run-inputs.js";
import { engine, runSession, type SessionEnd } from "./run-session.js";

export { parseInput, parseVars } from "./run-inputs.js";

const usage = (m: string) => new CliError(m, EXIT.usage);

/** Run ids: what `--run-id` accepts (nested runs use `/`, `#` and `[]`, so those are refused). */
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Prints a run's events: NDJSON, or text lines whose suggested commands add `flag` (the journal's ` --state-dir DIR` or ` --store URL`). */
function eventSink(io: Io, json: boolean, flag: string): (e: RunEvent) => void {
  const start = Date.now();
  return (e) => {
    if (json) io.out(JSON.stringify(e) + "\n");
    else {
      const line = renderEvent(e, start, flag);
      if (line) io.out(line + "\n");
    }
  };
}

function endOf(end: RunEnd): SessionEnd {
  return end.success ? { code: EXIT.ok, status: "succeeded", run_id: end.run_id } : { code: EXIT.problems, status: "failed", run_id: end.run_id };
}

/**
 * Whether a run parks at approvals and signal waits instead of waiting:
 * `--no-wait` / `--wait` when given, else parked in CI (`CI=true`) when stdin is no TTY,
 * where nobody could answer.
 */
function parks(opt: boolean | undefined, io: Io): boolean {
  // The Go tool's approval modes (found by a trial of its language: with the variable set,
  // a run outside CI waited at its approval, silently).
  if (io.env.CRITERIA_LOCAL_APPROVAL !== undefined) {
    io.err(`criteria: warning: CRITERIA_LOCAL_APPROVAL is the Go tool's and is not read here: decide approvals with criteria approve|reject, or --auto-approve; with CI=true a run parks at them\n`);
  }
  if (opt !== undefined) return !opt;
  return io.env.CI === "true" && process.stdin.isTTY !== true;
}

/**
 * Registers the engine commands (docs/architecture.md, The engine): apply, resume and unlock here; runs,
 * journal, signal, approve and reject in journal-commands.ts. Each sets the exit code
 * (cli/io.ts `EXIT`) through `setCode`.
 */
export function registerRunCommands(program: Command, io: Io, setCode: (c: number) => void): void {
  const outputOpt = () => new Option("-o, --output <format>", "events as text lines or NDJSON (default: text on a TTY, json when piped)").choices(["text", "json"]);
  const waitOpts = (c: Command) => {
    // Both given is refused, as journal's -o and --format that disagree (found by a new-user
    // trial: apply --wait --no-wait was taken, the last one silently winning).
    const given = new Set<string>();
    for (const flag of ["wait", "no-wait"]) {
      c.on(`option:${flag}`, () => {
        given.add(flag);
        if (given.size > 1) throw usage("--wait and --no-wait disagree; give one of them");
      });
    }
    return c
      // --wait first: commander then leaves the default undefined (neither flag given).
      .option("--wait", "wait at approvals and signal waits even in CI")
      .option("--no-wait", "park the run at an approval or a signal wait (exit 5) instead of waiting; the default when CI=true and stdin is no terminal")
      .option("--broker <url>", BROKER_HELP);
  };
  const isJson = (output: string | undefined) => (output ? output === "json" : !io.isTTY);

  waitOpts(
    program
      .command("apply")
      .description("run a workflow to its end, journaled (resumable after a crash)")
      .argument("<path>", "workflow file or directory", pathArgument)
      .option("--var <name=value>", "set a variable (repeatable)", collect, [])
      .option("--var-file <file>", "variables from a JSON/YAML file (repeatable)", collect, [])
      .option("--state-dir <dir>", "journal directory (default: $CRITERIA_STATE_DIR or .criteria)")
      .option("--store <url>", STORE_HELP)
      .option("--run-id <id>", "choose the run id (refused if it exists)")
      .option("--input <json>", "the run's input object, read as input.<key> (a flow run alone); @file.json reads it from a file")
      .option("--auto-approve", "approve every approval node")
      .option("--detach", "only submit the run to the workers sharing --store (criteria worker) and print its id"),
  )
    .addOption(rootOption())
    .addOption(outputOpt())
    .action(async (path: string, opts: { var: string[]; varFile: string[]; input?: string; stateDir?: string; store?: string; runId?: string; autoApprove?: boolean; output?: string; root?: string; wait?: boolean; detach?: boolean; broker?: string }) => {
      const json = isJson(opts.output);
      let flag = "";
      setCode(
        await runSession(io, json, async (signal) => {
          if (opts.runId !== undefined && !RUN_ID.test(opts.runId)) {
            // Quoted once (echoed quotes a value with spaces or control characters itself).
            const shown = echoed(opts.runId);
            throw usage(`--run-id ${shown.startsWith('"') ? shown : `"${shown}"`}: use ASCII letters and digits, ".", "_" and "-" (at most 128, starting with a letter or digit)`);
          }
          // Not read as a file named "-" that is not there (found by a new-user trial: "- does not exist … check the path").
          if (path === "-" && !existsSync(path)) throw usage("-: apply does not read standard input; give the workflow file's path (validate, compile, graph, plan and fmt read -)");
          const place = placeOf(opts, io);
          flag = storeFlag(place);
          if (opts.detach) refuseWithDetach(opts, flag);
          const input = opts.input !== undefined ? parseInput(opts.input) : {};
          const compiling = compileOptions(opts, io, [path]);
          const c = await compile(path, compiling);
          if (!c.graph) {
            if (json) io.out(JSON.stringify({ event: "diagnostics", ...toJsonReport(c.files, c.diagnostics) }) + "\n");
            else for (const d of c.diagnostics) io.err((await formatText(d, c.sources)) + "\n");
            // Nothing read (a PATH that is not there, or not readable): not "does not compile"
            // (found by a new-user trial); the diagnostic says why.
            const what = c.files.length === 0 ? `cannot run ${path}: it could not be read` : `${path} does not compile`;
            return { code: c.diagnostics.some((d) => d.code === "internal_error") ? EXIT.internal : EXIT.problems, status: "error", message: what };
          }
          const graph = c.graph;
          checkInput(graph, input, opts.var);
          const vars = parseVars(graph, opts.var, opts.varFile, input, process.env, opts.detach === true);
          const found = workflowFiles(resolve(path));
          const baseDir = found.kind === "dir" ? resolve(path) : dirname(resolve(path));
          // The roots modules were allowed from, kept (relative, as the entry) so resume compiles as apply did.
          const source = {
            entry: relative(baseDir, resolve(path)) || ".",
            hash: sourceHash(c.sources, process.cwd(), baseDir),
            ...(compiling.root !== undefined ? { root: relative(baseDir, resolve(compiling.root)) || "." } : {}),
            ...(compiling.allowedRoots ? { allowed: compiling.allowedRoots.map((r) => relative(baseDir, resolve(r)) || ".") } : {}),
          };
          const { apply } = await engine();
          const end = await apply(graph, vars, { ...place, baseDir, events: eventSink(io, json, flag), autoApprove: opts.autoApprove, signal, runId: opts.runId, input, park: parks(opts.wait, io), source, detach: opts.detach === true, broker: brokerOf(opts.broker, io.env) });
          return endOf(end);
        }, () => flag),
      );
    });

  waitOpts(
    program
      .command("resume")
      .description("continue a run from its journal: finished steps are re-used, nothing confirmed runs twice")
      .argument("<run>", "the run id (criteria runs lists them)", runArgument)
      .option("--state-dir <dir>", "journal directory")
      .option("--store <url>", STORE_HELP)
      .option("--auto-approve", "approve every approval node")
      .option("--force", "take the run over even from a live process whose lease has not expired (that process can no longer write)")
      .option("--discard-damaged", "resume past a damaged journal entry: set it and the entries after it aside (kept in the journal's quarantine), re-running what they recorded")
      .option("--workdir <dir>", "the workflow's directory now, when the checkout moved since the run started")
      .option("--detach", "hand the run to the workers sharing --store (criteria worker) instead of running it here")
      .option("--var <name=value>", "a secret variable of the run again (secrets are never journaled; CRITERIA_VAR_<name> works too)", collect, []),
  )
    .addOption(outputOpt())
    .action(async (run: string, opts: { stateDir?: string; store?: string; autoApprove?: boolean; output?: string; force?: boolean; discardDamaged?: boolean; workdir?: string; wait?: boolean; var: string[]; broker?: string; detach?: boolean }) => {
      const json = isJson(opts.output);
      let flag = "";
      setCode(
        await runSession(io, json, async (signal) => {
          const place = placeOf(opts, io);
          flag = storeFlag(place);
          const { resume, handOver, DETACH_NEEDS_STORE } = await engine();
          if (opts.detach && !place.store) throw usage(DETACH_NEEDS_STORE);
          if (opts.detach) refuseWithDetach(opts, flag, run);
          const sink = eventSink(io, json, flag);
          const j = await openJournal(place);
          let row;
          let spawned;
          /** Where a --workdir of an earlier resume put the run's files (run.relocated). */
          let relocated: string | undefined;
          /** Where the run's files are now, as the runner will find them (when it is active and they are found). */
          let dir;
          let unit = run;
          /** The damaged entry of an ended run's journal, which journal shows it up to. */
          let damagedAt: number | undefined;
          try {
            // Opening recovers a torn write-ahead log (and checkpoints it): say so here.
            for (const note of j.notes) sink({ event: "warning", run_id: run, message: note });
            row = await j.run(run);
            if (row?.status === "active") {
              const { foldEntries, unitOf, workflowDir } = await engine();
              const tree = foldEntries((await j.read(row.root_run_id)).entries);
              const root = tree.runs.get(row.root_run_id);
              // Found where a --workdir of an earlier resume put it (run.relocated), as the runner finds it.
              spawned = root?.spawned;
              relocated = root?.relocated;
              dir = spawned ? workflowDir(j.stateDir, spawned, opts.workdir, relocated) : undefined;
              // The job that advances it: its own, or the one of the run it runs within (as unlock finds its lease).
              if (opts.detach && row.parent_run_id) unit = unitOf(tree, row.root_run_id, run);
            } else if (row) damagedAt = (await j.scan(row.root_run_id, () => undefined))?.seq;
          } finally {
            await j.close();
          }
          // The run's files where they are now, compiled once for the checks below (a --workdir is where the runner will look).
          const compiled = new Map<string, Promise<Compilation>>();
          const compileAt = (base: string) => {
            let c = compiled.get(base);
            if (!c) compiled.set(base, (c = compileAsStarted(spawned!.source!, base)));
            return c;
          };
          const changed = spawned && dir !== undefined ? await sourceChanged(spawned, dir, compileAt) : undefined;
          if (changed) sink({ event: "warning", run_id: run, message: changed });
          if (!row) throw new CliError(noRun(run, place));
          // A nested run: the runner advances it alone when it runs in a job of its own
          // (workers), and otherwise refuses, naming its root.
          if (row.status !== "active") {
            // Its journal damaged, journal shows what it can and says the run needs no resume (found by a user trial: advice went round in a circle).
            // A failed run is not run again (found by a new-user trial: after fixing a typo, resume
            // said only that it had ended): say how to go on.
            const again = row.status === "succeeded" ? "" : `; an ended run is not resumed: apply the workflow again for a new run (its steps, and their effects, run again from the start)`;
            const message = `run ${run} has already ended: ${endedAs(row)} (criteria journal ${run}${flag} shows it${damagedAt !== undefined ? `, as far as its damaged entry ${damagedAt}` : ""})${again}`;
            if (!json) io.out(message + "\n");
            return { code: row.status === "succeeded" ? EXIT.ok : EXIT.problems, status: row.status === "succeeded" ? "succeeded" : "failed", run_id: run, message };
          }
          if (opts.workdir !== undefined && !isDirectory(opts.workdir)) throw usage(`--workdir ${opts.workdir}: not a directory (it names where the workflow's files are now)`);
          const lacking = opts.workdir !== undefined ? await workdirLacks(opts.workdir, run, spawned, relocated, compileAt) : undefined;
          if (lacking) throw usage(lacking);
          if (opts.detach) return await handOver(unit, { ...place, events: sink, ...(opts.workdir !== undefined ? { relocate: { rootRunId: row.root_run_id, baseDir: resolve(opts.workdir) } } : {}) });
          const secretVars: Record<string, string> = {};
          const declared = declaredVariables(spawned?.graph as Graph | undefined);
          for (const p of opts.var) {
            const i = p.indexOf("=");
            if (i <= 0) throw usage(`--var ${p}: expected name=value`);
            const name = p.slice(0, i);
            // Only secret variables are given again (the others are journaled): say so rather
            // than drop it (found by a new-user trial: an unknown --var passed silently).
            const secret = declared.get(name);
            if (declared.size > 0 && secret === undefined) throw usage(`--var ${name}: the workflow of run ${run} declares no variable "${name}"${suggest(name, [...declared.keys()]) ? `; ${suggest(name, [...declared.keys()])}` : ""}`);
            if (secret === false) throw usage(`--var ${name}: resume takes only secret variables again; "${name}" was given when the run started and is journaled`);
            secretVars[name] = p.slice(i + 1);
          }
          const end = await resume(run, { ...place, events: sink, autoApprove: opts.autoApprove, signal, force: opts.force, discardDamaged: opts.discardDamaged, workdir: opts.workdir, park: parks(opts.wait, io), secretVars, broker: brokerOf(opts.broker, io.env) });
          return endOf(end);
        }, () => flag),
      );
    });

  program
    .command("unlock")
    .description("end a run's lease, whoever holds it (a process that still runs it can no longer write); say what it overrides")
    .argument("<run>", "the run id", runArgument)
    .option("--state-dir <dir>", "journal directory")
    .option("--store <url>", STORE_HELP)
    .action(async (run: string, opts: { stateDir?: string; store?: string }) => {
      const place = placeOf(opts, io);
      const j = await openJournal(place);
      try {
        const row = await j.run(run);
        if (!row) throw new CliError(noRun(run, place));
        // A child run advanced in a job of its own has a lease of its own, held or not (found by a
        // trial: one given back fell through to its root's, which a worker may hold); any other
        // nested run, the lease of the job it runs in.
        const { foldEntries, unitOf } = await engine();
        const read = row.parent_run_id ? await j.read(row.root_run_id) : undefined;
        const leased = read ? unitOf(foldEntries(read.entries), row.root_run_id, run) : run;
        const damage = read ? read.damage : await j.scan(run, () => undefined);
        // A damaged journal: what goes on from it is what its damage report says, not a plain
        // resume (found by a user trial: "nothing to unlock" of a run whose first entry was
        // damaged, and nothing more, after resume and apply --run-id had refused it).
        const rootRow = row.root_run_id === run ? row : await j.run(row.root_run_id);
        const damaged = damage ? damageMessage(await j.damageReport(row.root_run_id, damage.seq), place, rootRow) : undefined;
        const held = await j.breakLease(leased);
        const said = (what: string, h: LeaseHolder) => {
          const when = h.expiresMs > Date.now() ? `its lease ran until ${new Date(h.expiresMs).toISOString()}` : `its lease had expired at ${new Date(h.expiresMs).toISOString()}`;
          return `${what}: it was held by process ${h.pid} on ${h.host} (${h.alive ? "still running: it stops what it runs at its next heartbeat, and can no longer write to the journal" : "not running"}; ${when})`;
        };
        // A root's child runs advanced in jobs of their own hold leases of their own: taken too,
        // the whole run waits for its user (found by a new-user trial: "nothing to unlock" of a
        // root parked while its children ran on, which went on running).
        const children: string[] = [];
        if (leased === row.root_run_id && place.store) {
          for (const child of await j.runs({ childrenOf: leased, active: true, limit: 100_000 })) {
            const h = await j.breakLease(child.run_id);
            if (h) children.push(said(`unlocked its child run ${child.run_id}`, h));
          }
        }
        if (!held && children.length === 0) io.out(`run ${leased} was not held by any process; nothing to unlock${damaged ? `; ${damaged}` : ""}\n`);
        else {
          const lines = [...(held ? [said(`unlocked run ${leased}`, held)] : []), ...children];
          lines[lines.length - 1] += `; ${damaged ?? `criteria resume ${leased}${storeFlag(place)} continues it`}`;
          for (const line of lines) io.out(`${line}\n`);
        }
      } finally {
        await j.close();
      }
    });

  registerJournalCommands(program, io, setCode);
}

/**
 * Flags that act on a run in this process, refused with `--detach` (found by new-user trials:
 * `--auto-approve` was accepted and ignored, and so was `resume --force`). `--workdir` is journaled for the workers
 * (`run.relocated`), so it is taken. `flag` names the journal in the command suggested.
 * @throws CliError (usage)
 */
function refuseWithDetach(opts: { autoApprove?: boolean; wait?: boolean; force?: boolean }, flag: string, run?: string): void {
  // Found by a new-user trial: `resume --force --detach` of a run a worker held was submitted, and nothing was taken.
  if (opts.force) throw usage(`--force takes the run over in this process, and --detach runs nothing here: take it from its holder with criteria unlock ${run ?? "RUN"}${flag} (the holder stops what it runs), then resume --detach hands it to the workers`);
  if (opts.autoApprove) throw usage(`--auto-approve approves in this process, and --detach runs nothing here: decide on the workers' runs with criteria approve RUN NAME${flag} (or reject)`);
  // --no-wait (parking) is what workers do anyway: accepted, as CI scripts pass it everywhere.
  if (opts.wait === true) throw usage("--wait says this process waits at approvals and signal waits, and --detach runs nothing here: a run on the workers parks at them");
}

const collect = (v: string, prev: string[]) => [...prev, v];

/**
 * The entry a run was started from (`source` of its `run.spawned`) compiled at `base` (an
 * absolute directory) as apply compiled it: with its --root and allowed paths (found by a
 * new-user trial: modules outside the entry's directory made every resume say the files changed).
 */
function compileAsStarted(source: { entry: string; root?: string; allowed?: string[] }, base: string): Promise<Compilation> {
  const { root, allowed } = source;
  return compile(resolve(base, source.entry), { cwd: process.cwd(), root: root !== undefined ? resolve(base, root) : base, ...(allowed ? { allowedRoots: allowed.map((r) => resolve(base, r)) } : {}) });
}

/**
 * Whether the files a run was started from changed since (resume runs the
 * journaled workflow, never a mix): a warning to say, or undefined when they did not (or
 * their directory is gone, which resume itself reports). A deleted entry file is said too
 * (found by a new-user trial: the run went on without a word).
 * @param base the directory they are in now (`workflowDir`: where the runner will look)
 * @param compileAt the run's entry compiled at a directory ({@link compileAsStarted})
 */
async function sourceChanged(spawned: { source?: { entry: string; hash: string; root?: string; allowed?: string[] } }, base: string, compileAt: (base: string) => Promise<Compilation>): Promise<string | undefined> {
  if (!spawned.source) return undefined;
  const entry = resolve(base, spawned.source.entry);
  if (!existsSync(entry)) {
    if (!isDirectory(base)) return undefined;
    return `the workflow's file ${displayPath(entry, process.cwd())} is gone since the run started; resume continues the workflow as it was then (journaled with the run)`;
  }
  const c = await compileAt(base);
  const now = sourceHash(c.sources, process.cwd(), base);
  if (now === spawned.source.hash) return undefined;
  // A module's files gone are said, as the entry's are (a new-user trial: a subworkflow's
  // directory deleted was "changed", and its steps then failed for want of their directory).
  const gone = [...new Set(c.diagnostics.filter((d) => d.code === "file_not_found").map((d) => d.message.replace(/^[^:]*: /, "")))];
  if (gone.length > 0) return `the workflow's files changed since the run started (${gone.join("; ")}); resume continues the workflow as it was then (journaled with the run), but a step that runs in a directory that is gone will fail: put it back first`;
  return `the workflow's files changed since the run started; resume continues the workflow as it was then (journaled with the run); start a new run to use the changes`;
}

/**
 * Why `workdir` is not where run `run`'s files are now, or undefined: it lacks the entry the
 * run was started from (`source.entry` of its `run.spawned`: a file, or "." for a directory of
 * workflow files). Refused before anything is written (found by a user trial: such a
 * --workdir was journaled as `run.relocated`, pointing the run where it cannot run). A run
 * journaled without its source is not checked.
 * @param relocated where an earlier --workdir put the run's files
 * @param compileAt the run's entry compiled at a directory ({@link compileAsStarted})
 */
async function workdirLacks(workdir: string, run: string, spawned: { workflow?: string; base_dir?: string; source?: { entry: string } } | undefined, relocated: string | undefined, compileAt: (base: string) => Promise<Compilation>): Promise<string | undefined> {
  const entry = spawned?.source?.entry;
  if (entry === undefined) return undefined;
  const found = workflowFiles(resolve(workdir, entry));
  const was = relocated ?? spawned?.base_dir;
  const from = was !== undefined ? ` (it was in ${was})` : "";
  if (entry === "." ? found.kind === "dir" && found.files.length > 0 : found.kind === "file") {
    // Files of another workflow there (found by a new-user trial: --workdir /tmp, whose own
    // .hcl files were taken for the run's: "changed", then its steps failed and the run ended).
    const name = (await compileAt(resolve(workdir))).spec?.header?.name;
    if (spawned?.workflow === undefined || name === spawned.workflow) return undefined;
    return `--workdir ${workdir} holds ${name === undefined ? "no workflow" : `workflow "${name}"`}, not "${spawned.workflow}" that run ${run} was started from${from}: give the directory that holds its files now; nothing was written`;
  }
  return entry === "."
    ? `--workdir ${workdir} holds no workflow file (*.hcl, *.yaml, …), and run ${run} was started from a directory of them${from}: give the directory that holds the workflow's files now; nothing was written`
    : `--workdir ${workdir} holds no ${entry}, the file run ${run} was started from${from}: give the directory that holds ${entry} now; nothing was written`;
}

/** Whether `path` is a directory (false when it does not exist or cannot be read). */
function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Every variable a compiled graph declares, its bodies' and its modules' included, by name:
 * true for a secret one (`--var` on resume gives those again). Empty without a graph.
 */
function declaredVariables(graph: Graph | undefined): Map<string, boolean> {
  const out = new Map<string, boolean>();
  const walk = (g: Graph | undefined) => {
    if (!g) return;
    for (const v of g.variables) out.set(v.name, out.get(v.name) === true || v.secret === true);
    for (const st of g.steps) walk(st.body);
  };
  walk(graph);
  for (const m of Object.values(graph?.modules ?? {})) walk(m);
  return out;
}
