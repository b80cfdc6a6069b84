import type { Graph } from "../../compiler/build/graph.js";
import type { Payloads } from "../journal/entry.js";
import type { TreeRecord } from "../journal/fold.js";

/**
 * Child runs advanced in their own jobs (the scale-out issue, item 4). Under workers
 * (`RunnerOptions.detachChildren`), a child run (a body, a subworkflow, a flow used as an
 * agent) is spawned as a *lease unit* of its own: its `run.spawned` says `detached: true`
 * and wakes a job for it; its parent parks until the child's `run.completed`, which wakes
 * the parent's job in the same transaction. A unit's job replays the tree down to it and
 * writes only inside it, under its own lease. Every other run belongs to the unit of its
 * nearest detached ancestor, or of the root.
 */

/** `run` is `ancestor` or one of its descendants (run ids nest: `parent/step#visit[item]`). */
export function within(run: string, ancestor: string): boolean {
  return run === ancestor || run.startsWith(`${ancestor}/`);
}

/**
 * The lease unit `runId` belongs to: itself when it is the tree's root or was spawned
 * detached, else its parent's. A run the tree does not know yet belongs to its root.
 */
export function unitOf(tree: TreeRecord, rootId: string, runId: string): string {
  let r: string | undefined = runId;
  while (r !== undefined && r !== rootId) {
    const spawned: Payloads["run.spawned"] | undefined = tree.runs.get(r)?.spawned;
    if (!spawned) return rootId;
    if (spawned.detached) return r;
    r = spawned.parent_run_id;
  }
  return rootId;
}

/** The tree's lease units that have not ended (the root and each detached child run still active), root first. */
export function activeUnits(tree: TreeRecord, rootId: string): string[] {
  const out = [rootId];
  for (const [id, r] of tree.runs) if (id !== rootId && r.spawned?.detached && !r.completed) out.push(id);
  return out;
}

/**
 * A step reached child runs that run in their own jobs and have not ended: the run parks
 * until they end (each child's `run.completed` wakes it). Internal to the runner; it
 * leaves as {@link RunParked}.
 */
export class ChildrenPending extends Error {
  constructor(readonly runIds: string[]) {
    super(`waiting for child run${runIds.length > 1 ? "s" : ""} ${runIds.join(", ")}`);
  }
}

/**
 * A job advancing a child run (its unit) reached, while replaying the runs around it,
 * something only another unit may write (a sibling item, the parent's next step): that
 * branch stops here. Internal to the runner; never leaves it.
 */
export class NotThisUnit extends Error {
  constructor(readonly runId: string) {
    super(`run ${runId} is advanced by another job`);
  }
}

/** The unit a child job advances has ended (journaled): the replay around it unwinds. Internal to the runner. */
export class UnitEnded<T> extends Error {
  constructor(readonly end: T) {
    super("the run this job advances has ended");
  }
}

/**
 * Whether a child run of graph `g` uses a session of its caller that cannot be opened
 * again elsewhere: an adapter or agent it inherits (a body's enclosing workflow's, or one
 * a module `expects`; `inherited` entries alias the caller's live session), unless it is an
 * adapter whose sessions keep nothing between steps (`stateless`: shell, noop). Such a
 * child stays in its caller's job; the others may run in jobs of their own.
 */
export function sharesCallerSessions(g: Graph, stateless: (type: string) => boolean, owned: ReadonlySet<string> = new Set()): boolean {
  // Writes to shared variables or data (its caller's, for a body) are applied in its
  // caller's memory as they happen: such a child stays in its caller's job too (found by a
  // new-user trial: under workers, examples/shared_counter ended with its writes lost).
  if (g.steps.some((s) => s.outcomes.some((o) => Object.keys(o.shared_writes).length > 0 || (o.writes?.length ?? 0) > 0))) return true;
  const mine = new Set(owned);
  for (const a of g.adapters) if (!a.inherited) mine.add(`adapter ${a.id}`);
  for (const a of g.agents) if (!a.inherited) mine.add(`agent ${a.name}`);
  if (g.adapters.some((a) => a.inherited && !mine.has(`adapter ${a.id}`) && !stateless(a.type))) return true;
  if (g.agents.some((a) => a.inherited && !mine.has(`agent ${a.name}`))) return true;
  // A body nested in it sees the child's sessions and, through it, its caller's.
  return g.steps.some((s) => s.body !== undefined && sharesCallerSessions(s.body, stateless, mine));
}

/** What the items of a parallel step (or any work run side by side) may end with besides a result. */
export interface Park {
  /** The error is the run parking at a wait or an approval. */
  is(e: unknown): boolean;
  /** That park, also waiting for `children`. */
  with(parked: Error, children: string[]): Error;
}

/**
 * Of the errors the items of a parallel step ended with, the one the step ends with:
 * the unit's end first (everything else was replay), then a real failure (an
 * interruption, a lost lease, a storage error), then a park (children pending merged
 * in), then children pending (merged), then "another job's".
 */
export function firstOf(errors: unknown[], park: Park): unknown {
  const ended = errors.find((e) => e instanceof UnitEnded);
  if (ended) return ended;
  const real = errors.find((e) => !(e instanceof ChildrenPending) && !(e instanceof NotThisUnit) && !park.is(e));
  if (real !== undefined) return real;
  const children = errors.flatMap((e) => (e instanceof ChildrenPending ? e.runIds : []));
  const parked = errors.find((e) => park.is(e)) as Error | undefined;
  if (parked) return children.length > 0 ? park.with(parked, children) : parked;
  if (children.length > 0) return new ChildrenPending(children);
  return errors[0];
}
