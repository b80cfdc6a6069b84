/**
 * How an iterating step's item is named to a user, in apply's progress lines and in the
 * runner's warnings alike (a warning named items by their 0-based index beside lines
 * counting from 1; found by a new-user trial: "fan"[3] was the line's [4/4]).
 */

/**
 * `4/4` (1-based, of `total`), `4` when the total is not known (a while loop: `total` -1),
 * or a map item's key in JSON quotes (`"api"`). Without the brackets the callers add.
 *
 * @param index the item's 0-based index
 * @param total how many items, -1 when not known
 * @param key a map item's key
 */
export function itemLabel(index: number, total: number, key?: string): string {
  if (key !== undefined) return JSON.stringify(key);
  return `${index + 1}${total >= 0 ? `/${total}` : ""}`;
}
