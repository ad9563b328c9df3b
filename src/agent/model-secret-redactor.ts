import { REDACTED } from '../core/redacted.js';
import { withoutCredentials } from '../core/without-credentials.js';
import type { ModelHeaders } from './model-headers.js';

/**
 * The shortest run of characters shared with a secret that is struck out: a quote of part of a
 * key is caught, while short words a header value may share with a message ("openai") are not.
 */
const SHORTEST_SHARED_RUN = 8;

/** The redactor reads this much of a text (an error page can be long; what is shown is cut far shorter). */
const LONGEST_TEXT = 4_000;

/** The secrets of a model server's configuration that its own error texts may quote. */
export interface ModelSecrets {
  /** `LLM_API_KEY`. */
  readonly apiKey?: string | undefined;
  /** `LLM_HEADERS`: their values may hold a gateway's key. */
  readonly headers?: ModelHeaders | undefined;
  /** Also hide the server's address (for texts the API caller sees). */
  readonly baseUrl?: string | undefined;
}

/** The server's URL (without credentials and a trailing slash) and its host, as a text may quote them. */
function addressOf(baseUrl: string | undefined): string[] {
  if (!baseUrl || !URL.canParse(baseUrl)) return [];
  const url = new URL(withoutCredentials(baseUrl));
  return [url.href.replace(/\/$/, ''), url.host];
}

/** Marks in `marks` every character of `text` inside a run of at least `SHORTEST_SHARED_RUN` characters that `secret` also holds. */
function markSharedRuns(text: string, secret: string, marks: boolean[]): void {
  let previous = new Array<number>(secret.length + 1).fill(0);
  for (let i = 1; i <= text.length; i++) {
    const current = new Array<number>(secret.length + 1).fill(0);
    for (let j = 1; j <= secret.length; j++) {
      if (text[i - 1] !== secret[j - 1]) continue;
      const run = (previous[j - 1] ?? 0) + 1;
      current[j] = run;
      if (run === SHORTEST_SHARED_RUN) marks.fill(true, i - run, i);
      else if (run > SHORTEST_SHARED_RUN) marks[i - 1] = true;
    }
    previous = current;
  }
}

/** Leaves the spaces at either end of a marked run as they are: `token [redacted] refused`, not `token[redacted] refused`. */
function unmarkEdgeSpaces(text: string, marks: boolean[]): void {
  for (let index = 0; index < text.length; index++) {
    if (marks[index] && /\s/.test(text[index] ?? '') && !marks[index - 1]) marks[index] = false;
  }
  for (let index = text.length - 1; index >= 0; index--) {
    if (marks[index] && /\s/.test(text[index] ?? '') && !marks[index + 1]) marks[index] = false;
  }
}

/**
 * Builds the function that makes a model server's text fit to show: credentials in URLs
 * removed, then the key, each header value, and any run of 8 or more characters that one of
 * them holds (a key quoted in part, the token of `Bearer <token>`, a key inside a JSON config)
 * replaced by `[redacted]`; when given, the server's address too. It reads the first 4,000
 * characters of a text.
 * @param secrets what the configuration holds
 * @example
 * createModelRedactor({ apiKey: 'sk-live-0123456789' })('Incorrect API key provided: sk-live-0123****'); // 'Incorrect API key provided: [redacted]****'
 */
export function createModelRedactor(secrets: ModelSecrets): (text: string) => string {
  const whole = [secrets.apiKey, ...addressOf(secrets.baseUrl)]
    .filter((value): value is string => typeof value === 'string' && value !== '')
    .sort((a, b) => b.length - a.length);
  const partly = [secrets.apiKey, ...Object.values(secrets.headers ?? {})].filter(
    (value): value is string => typeof value === 'string' && value.length >= SHORTEST_SHARED_RUN,
  );
  return (text) => {
    const exact = whole.reduce(
      (scrubbed, secret) => scrubbed.replaceAll(secret, REDACTED),
      withoutCredentials(text.slice(0, LONGEST_TEXT)),
    );
    const marks = new Array<boolean>(exact.length).fill(false);
    for (const secret of partly) markSharedRuns(exact, secret, marks);
    unmarkEdgeSpaces(exact, marks);
    return exact.replace(/[\s\S]/g, (character, index: number) =>
      !marks[index] ? character : marks[index - 1] ? '' : REDACTED,
    );
  };
}
