import { statSync } from "node:fs";
import { resolve } from "node:path";

/**
 * The directory a resumed run's relative paths resolve against, for a checkout that may
 * have moved between apply and resume: `workdir` (`resume --workdir`, absolute or relative
 * to the working directory), else the last directory journaled by `run.relocated`, else the
 * journaled one relative to the journal's state directory (`base_dir_rel`: a checkout that
 * moved with its `.criteria/`), else the journaled absolute one (`base_dir`); the first of
 * these that is a directory now. The runner resolves a resume's files with it, and the CLI
 * compares the files found there with the journaled source hash, so the two never disagree.
 * @param stateDir the journal's state directory
 * @param spawned the root run's `run.spawned` payload (its `base_dir`, `base_dir_rel`)
 * @returns an absolute path, or undefined when none of them is a directory
 */
export function workflowDir(stateDir: string, spawned: { base_dir?: string; base_dir_rel?: string }, workdir: string | undefined, relocated: string | undefined): string | undefined {
  const candidates = [workdir !== undefined ? resolve(workdir) : undefined, relocated, spawned.base_dir_rel !== undefined ? resolve(stateDir, spawned.base_dir_rel) : undefined, spawned.base_dir];
  return candidates.find((c) => c !== undefined && isDirectory(c));
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
