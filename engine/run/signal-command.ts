import { shellWord } from "../shell-word.js";

/**
 * The `criteria signal` command that ends a wait for signal `name` of run `run`, printed to be
 * pasted (apply's parked message, its text events, `criteria runs`): each word shell-quoted, a
 * name that starts with `-` last, after `--` (else it reads as an option), `flag` (` --store …`
 * or ` --state-dir …`) after the name, and when the wait routes only named outcomes (`outcomes`: no
 * `next`, no `outcome "received"`), a payload naming the first of them, which a signal without
 * one would not end it by (found by new-user trials: the commands printed were refused, and a
 * name like `a$(id)` ran a command when pasted).
 */
export function signalCommand(run: string, name: string, flag: string, outcomes?: readonly string[]): string {
  const named = (outcomes ?? []).filter((o) => o !== "timeout" && o !== "elapsed");
  const payload = named.length > 0 ? ` --payload ${shellWord(`{"outcome":"${named[0]}"}`)}` : "";
  const command = name.startsWith("-") ? `criteria signal ${shellWord(run)}${flag}${payload} -- ${shellWord(name)}` : `criteria signal ${shellWord(run)} ${shellWord(name)}${flag}${payload}`;
  return named.length > 0 ? `${command} (an outcome of ${named.join(", ")})` : command;
}
