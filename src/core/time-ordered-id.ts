/**
 * A unique id that sorts by creation time: the epoch milliseconds in 12 hex digits, then 80
 * random bits. Ids made one after the other land next to each other in a B-tree keyed by id,
 * so a batch of them writes the index's last page rather than one page per id.
 * @param nowMs the creation time (epoch milliseconds)
 */
export function timeOrderedId(nowMs = Date.now()): string {
  const random = crypto.randomUUID().replaceAll('-', '');
  return `${timeOrderedPrefix(nowMs)}-${random.slice(0, 12)}${random.slice(13, 21)}`;
}

/** The start of every `timeOrderedId` made at `nowMs`: ids made before sort below it. */
function timeOrderedPrefix(nowMs: number): string {
  return nowMs.toString(16).padStart(12, '0');
}

/** The prefix of every invocation (run) id. */
const RUN_ID_PREFIX = 'inv_';

/**
 * A new invocation id, which is its run's: `inv_` and a time-ordered id, so runs written
 * together land on the last pages of the runs' tables, and ids made before a time sort below
 * `runIdBefore` of it.
 */
export function newRunId(nowMs = Date.now()): string {
  return `${RUN_ID_PREFIX}${timeOrderedId(nowMs)}`;
}

/** Every run id made before `nowMs` sorts below this (the retention clean-up deletes by it). */
export function runIdBefore(nowMs: number): string {
  return `${RUN_ID_PREFIX}${timeOrderedPrefix(nowMs)}`;
}
