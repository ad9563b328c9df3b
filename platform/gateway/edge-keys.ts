import { checkHeaderKey, type HeaderKeyCheck } from '../../src/http/index.js';

/** The header a caller of the external edge sends its instance's key in (the header an actor's own API key travels in). */
export const EDGE_KEY_HEADER = 'X-API-Key';

/** How a generated edge key starts, so a leaked one is recognisable in logs and scanners. */
const EDGE_KEY_PREFIX = 'akedge_';

/** A fresh edge key: the prefix and 32 random bytes, base64url. */
export function generateEdgeKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return (
    EDGE_KEY_PREFIX +
    btoa(String.fromCharCode(...bytes))
      .replaceAll('+', '-')
      .replaceAll('/', '_')
      .replace(/=+$/, '')
  );
}

/** An edge key as the dashboard and `/platform/actors` show it: the prefix and the last four characters. */
export function maskEdgeKey(key: string): string {
  const prefix = key.startsWith(EDGE_KEY_PREFIX) ? EDGE_KEY_PREFIX : '';
  return `${prefix}…${key.slice(-4)}`;
}

/**
 * The edge keys of the hosted instances: exactly one per instance ref. Rotating replaces the key
 * at once, so the old one is refused from the next request on (no grace period: a leaked key
 * must stop working when the owner rotates it).
 */
export class EdgeKeyring {
  readonly #keys = new Map<string, { key: string; rotatedAt: string | undefined }>();
  readonly #onChange: ((ref: string, key: string) => void) | undefined;

  /**
   * @param refs the instance refs; each gets `initial`'s key or a generated one
   * @param initial keys to start from (e.g. those a previous run saved)
   * @param onChange told of every rotated key, e.g. to save it
   */
  constructor(
    refs: Iterable<string>,
    initial: ReadonlyMap<string, string> = new Map(),
    onChange?: (ref: string, key: string) => void,
  ) {
    this.#onChange = onChange;
    for (const ref of refs) {
      const given = initial.get(ref);
      if (given !== undefined && given.length < 16)
        throw new Error(`The edge key given for ${ref} is shorter than 16 characters`);
      this.#keys.set(ref, { key: given ?? generateEdgeKey(), rotatedAt: undefined });
    }
  }

  /** The instance's current key, or undefined for an unknown ref. */
  keyOf(ref: string): string | undefined {
    return this.#keys.get(ref)?.key;
  }

  /** When the instance's key was last rotated (ISO time), or undefined when it never was. */
  rotatedAt(ref: string): string | undefined {
    return this.#keys.get(ref)?.rotatedAt;
  }

  /** Checks a key sent to the instance's edge, in constant time. */
  check(ref: string, given: string | undefined): HeaderKeyCheck {
    const entry = this.#keys.get(ref);
    return checkHeaderKey(given, entry === undefined ? [] : [entry.key]);
  }

  /** Replaces the instance's key with a fresh one and returns it; the old key is refused from now on. */
  rotate(ref: string): string {
    const entry = this.#keys.get(ref);
    if (entry === undefined) throw new Error(`No instance ${ref}`);
    const key = generateEdgeKey();
    this.#keys.set(ref, { key, rotatedAt: new Date().toISOString() });
    this.#onChange?.(ref, key);
    return key;
  }
}
