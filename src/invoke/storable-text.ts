import * as v from 'valibot';

/** A NUL character, or a UTF-16 surrogate without its pair (in `u` mode a pair matches as one code point, not `\p{Cs}`). */
const UNSTORABLE_CHARACTER = /[\u0000\p{Cs}]/u;

/** What a 422 says of a string holding a character no store can keep. */
export const UNSTORABLE_TEXT_DETAIL = 'must not contain a NUL character or an unpaired surrogate';

/**
 * Whether every store can keep `text` as it is: PostgreSQL refuses a NUL character in `text`,
 * and an unpaired surrogate has no UTF-8 form (it would come back as U+FFFD).
 */
export function isStorableText(text: string): boolean {
  return !UNSTORABLE_CHARACTER.test(text);
}

/** The valibot check of a request string that may reach the store (see `isStorableText`). */
export const storableText = v.check<string, string>(isStorableText, UNSTORABLE_TEXT_DETAIL);
