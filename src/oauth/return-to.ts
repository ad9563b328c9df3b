import { ActorError } from '../core/actor-error.js';

/** Longest `return_to` accepted. */
const MAX_RETURN_TO_LENGTH = 2048;

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
const CONTROL_OR_SPACE = /[\u0000-\u001f\u007f-\u009f\s]/u;
const LONE_SURROGATE = /\p{Cs}/u;
const NON_ASCII = /[^\u0000-\u007f]+/gu;
const PROBE_BASE = new URL('https://actor.invalid/oauth/callback');

/**
 * Why `value` is not a safe place to send a browser back to, or undefined when it is: a path on
 * this site (`/panel/stats`, `../panel/stats?tab=1`). Refused: schemes (`https:`, `javascript:`),
 * protocol-relative `//host`, any backslash (`/\host`), control characters and white space,
 * and anything that resolves to another origin.
 * @param value the raw `return_to` value (already percent-decoded from the query)
 */
export function returnToProblem(value: string): string | undefined {
  if (value.length > MAX_RETURN_TO_LENGTH) return `is longer than ${MAX_RETURN_TO_LENGTH} characters`;
  if (CONTROL_OR_SPACE.test(value)) return 'contains control characters or white space';
  if (LONE_SURROGATE.test(value)) return 'is not well-formed Unicode';
  if (value.includes('\\')) return 'contains a backslash';
  if (value.startsWith('//')) return 'is a protocol-relative URL';
  if (SCHEME.test(value)) return 'names a scheme; only relative paths are allowed';
  if (new URL(value, PROBE_BASE).origin !== PROBE_BASE.origin) return 'leaves this site';
  return undefined;
}

/**
 * Reads the `return_to` query value: undefined when absent or empty, the value when it is a
 * relative path on this site, otherwise a 400 `invalid_return_to` problem. Characters outside
 * ASCII come back percent-encoded as UTF-8 (`/café` → `/caf%C3%A9`), so the value fits a
 * `Location` header (header values are bytes; a character above U+00FF cannot be sent).
 * @param value the query value, or null when absent
 */
export function parseReturnTo(value: string | null): string | undefined {
  if (value === null || value === '') return undefined;
  const problem = returnToProblem(value);
  if (problem !== undefined) {
    throw new ActorError('invalid_return_to', {
      detail: `return_to must be a relative path on this site; it ${problem}`,
      errors: [{ pointer: '/return_to', detail: problem }],
    });
  }
  return value.replace(NON_ASCII, encodeURIComponent);
}
