import { withoutCredentials } from '../core/without-credentials.js';
import type { ModelHeaders } from './model-headers.js';

/** What the redactor writes in place of a secret. */
const REDACTED = '[redacted]';

/** Pieces of a header value shorter than this are left alone: short words ("openai") are names, not keys. */
const SHORTEST_REDACTED_PIECE = 8;

/** The secrets of a model server's configuration that its own error texts may quote. */
export interface ModelSecrets {
  /** `LLM_API_KEY`. */
  readonly apiKey?: string | undefined;
  /** `LLM_HEADERS`: their values may hold a gateway's key. */
  readonly headers?: ModelHeaders | undefined;
  /** Also hide the server's address (for texts the API caller sees). */
  readonly baseUrl?: string | undefined;
}

/**
 * What to strike from a text: the key, each header value and each word of it (split at spaces
 * and JSON punctuation, so `Bearer <token>` and a key inside a JSON config are caught alone) of
 * at least 8 characters, and the server's URL and host when asked to; longest first.
 */
function secretsOf({ apiKey, headers, baseUrl }: ModelSecrets): string[] {
  const candidates = new Set<string>();
  if (apiKey) candidates.add(apiKey);
  for (const value of Object.values(headers ?? {})) {
    for (const piece of [value.trim(), ...value.split(/[\s"',;:{}[\]=]+/)]) if (piece.length >= SHORTEST_REDACTED_PIECE) candidates.add(piece);
  }
  if (baseUrl && URL.canParse(baseUrl)) {
    const url = new URL(withoutCredentials(baseUrl));
    candidates.add(url.href.replace(/\/$/, ''));
    candidates.add(url.host);
  }
  return [...candidates].sort((a, b) => b.length - a.length);
}

/**
 * Builds the function that makes a model server's text fit to show: credentials in URLs
 * removed, then the key, the header values and (when given) the server's address replaced by
 * `[redacted]`.
 * @param secrets what the configuration holds
 * @example
 * createModelRedactor({ apiKey: 'sk-1' })('Incorrect API key provided: sk-1'); // 'Incorrect API key provided: [redacted]'
 */
export function createModelRedactor(secrets: ModelSecrets): (text: string) => string {
  const strike = secretsOf(secrets);
  return (text) => strike.reduce((scrubbed, secret) => scrubbed.replaceAll(secret, REDACTED), withoutCredentials(text));
}
