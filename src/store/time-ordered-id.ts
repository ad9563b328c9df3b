/**
 * A unique id that sorts by creation time: the epoch milliseconds in 12 hex digits, then 80
 * random bits. Ids made one after the other land next to each other in a B-tree keyed by id,
 * so a batch of them writes the index's last page rather than one page per id.
 * @example
 * timeOrderedId(); // '019ab2c3d4e5-3f9c1a7b2e4d8c6f0a1b2c'
 */
export function timeOrderedId(nowMs = Date.now()): string {
  const random = crypto.randomUUID().replaceAll('-', '');
  return `${nowMs.toString(16).padStart(12, '0')}-${random.slice(0, 12)}${random.slice(13, 21)}`;
}
