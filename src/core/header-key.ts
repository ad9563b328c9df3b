const encoder = new TextEncoder();

/** Compares two strings in time that depends only on the length of `expected`. */
export function constantTimeEqual(given: string, expected: string): boolean {
  const a = encoder.encode(given);
  const b = encoder.encode(expected);
  let difference = a.length ^ b.length;
  for (let index = 0; index < b.length; index += 1) difference |= (a[index % Math.max(a.length, 1)] ?? 0) ^ b[index]!;
  return difference === 0;
}

/** What a request's key header holds: nothing, a key nobody accepts, or an accepted key. */
export type HeaderKeyCheck = 'missing' | 'invalid' | 'valid';

/**
 * Checks the key a request sent in a header against every accepted key, in constant time
 * (each key is compared, whatever matched before), so timing tells nothing about the keys.
 * @param given the header's value, undefined when absent
 * @param keys the accepted keys (several allow rotation)
 */
export function checkHeaderKey(given: string | undefined, keys: readonly string[]): HeaderKeyCheck {
  if (given === undefined || given === '') return 'missing';
  let matched = false;
  for (const key of keys) matched = constantTimeEqual(given, key) || matched;
  return matched ? 'valid' : 'invalid';
}
