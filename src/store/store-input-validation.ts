import type { IdempotencyCompletion, TurnToSave, StoredMessage, StoredOAuthToken } from './store.js';
import type { Mutable } from '../core/mutable.js';

/** Longest tenant id, session id, user identifier, record id or provider name a store accepts. */
const MAX_STORE_KEY_LENGTH = 512;

const MESSAGE_ROLES: ReadonlySet<string> = new Set(['user', 'assistant', 'system', 'tool']);

/** Throws a `TypeError` naming `field` unless `value` is a non-empty string of at most 512 characters. */
export function assertStoreKey(value: unknown, field: string): asserts value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_STORE_KEY_LENGTH) {
    throw new TypeError(`${field} must be a string of 1 to ${MAX_STORE_KEY_LENGTH} characters`);
  }
}

function assertCount(value: unknown, field: string): void {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new TypeError(`${field} must be a non-negative integer`);
  }
}

/** Milliseconds since the epoch of an ISO 8601 timestamp; throws a `TypeError` naming `field` when it is not one. */
export function parseTimestamp(value: unknown, field: string): number {
  const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw new TypeError(`${field} must be an ISO 8601 timestamp`);
  return ms;
}

/**
 * The records and histories `checkedTurnToSave` and `checkedTurnHistory` built. They are
 * frozen copies, so what was checked cannot change after: checked once, they are trusted after.
 */
const checked = new WeakSet<object>();

function assertInvocationCounts(record: TurnToSave): void {
  if (typeof record !== 'object' || record === null) throw new TypeError('an invocation record must be an object');
  if (record.id !== undefined) assertStoreKey(record.id, 'id');
  assertStoreKey(record.tenantId, 'tenantId');
  assertStoreKey(record.userIdentifier, 'userIdentifier');
  assertStoreKey(record.sessionId, 'sessionId');
  if (record.outcome !== 'success' && record.outcome !== 'error')
    throw new TypeError('outcome must be "success" or "error"');
  assertCount(record.inputTokens, 'inputTokens');
  assertCount(record.outputTokens, 'outputTokens');
  assertCount(record.toolCalls, 'toolCalls');
  if (typeof record.latencyMs !== 'number' || !Number.isFinite(record.latencyMs) || record.latencyMs < 0) {
    throw new TypeError('latencyMs must be a finite, non-negative number');
  }
  parseTimestamp(record.finishedAt, 'finishedAt');
  if (record.idempotency !== undefined) assertIdempotencyCompletion(record.idempotency);
}

/** Throws a `TypeError` naming the first bad field of a record's idempotency completion. */
function assertIdempotencyCompletion(completion: IdempotencyCompletion): void {
  if (typeof completion !== 'object' || completion === null) throw new TypeError('idempotency must be an object');
  assertStoreKey(completion.key, 'idempotency.key');
  assertHttpStatus(completion.status);
  if (typeof completion.body !== 'string') throw new TypeError('idempotency.body must be a string');
  assertTtl(completion.ttlMs);
}

/** Throws a `TypeError` unless `status` is an HTTP status code. */
export function assertHttpStatus(status: number): void {
  if (!Number.isInteger(status) || status < 100 || status > 599)
    throw new TypeError('status must be an HTTP status code');
}

/**
 * A frozen copy of a turn's messages, each checked; throws a `TypeError` naming the first bad
 * one. Messages this function returned come back as they are, without a second check.
 */
export function checkedTurnHistory(history: readonly StoredMessage[]): readonly StoredMessage[] {
  if (checked.has(history)) return history;
  if (!Array.isArray(history)) throw new TypeError('history must be an array of messages');
  const copy = Object.freeze(
    history.map((message: StoredMessage) => {
      assertStoredMessage(message);
      return Object.freeze({ ...message });
    }),
  );
  checked.add(copy);
  return copy;
}

/**
 * Marks the messages of a turn the runtime built itself (ids it made, `createdAt` from
 * `toISOString()`, roles and text its own types fix) as checked: `checkedTurnHistory` and
 * `checkedTurnToSave` then take them as they are, without a `Date.parse` of each
 * timestamp and a frozen copy of each message. Not frozen either (freezing them in place cost
 * as much as the copy): they are made for the turn's record and handed to nothing else. Never
 * for messages from outside (a chat handler of the user's, the SDK's store methods): those are
 * checked and copied.
 */
export function trustedTurnHistory(history: StoredMessage[]): readonly StoredMessage[] {
  checked.add(history);
  return history;
}

/**
 * A frozen copy of an invocation record, its `history` included, every field checked; throws
 * a `TypeError` naming the first bad one. A record this function returned comes back as it is,
 * without a second check: the group commit checks a record as it arrives and the store,
 * which checks every record it is given, trusts that check. `id` is used when the record has none.
 */
export function checkedTurnToSave(record: TurnToSave, id?: string): TurnToSave {
  if (checked.has(record) && (record.id !== undefined || id === undefined)) return record;
  assertInvocationCounts(record);
  if (id !== undefined) assertStoreKey(id, 'id');
  const history = record.history === undefined ? undefined : checkedTurnHistory(record.history);
  const idempotency = record.idempotency === undefined ? undefined : Object.freeze({ ...record.idempotency });
  // One copy and plain assignments: conditional spreads build and copy a throwaway object each.
  const copy: Mutable<TurnToSave> = { ...record };
  if (record.id === undefined && id !== undefined) copy.id = id;
  if (history !== undefined) copy.history = history;
  if (idempotency !== undefined) copy.idempotency = idempotency;
  Object.freeze(copy);
  checked.add(copy);
  return copy;
}

/**
 * The record without what only the turn's own write carries, its `history` and its
 * `idempotency` completion: the count alone, as it waits in memory or is written again after a
 * refused write. A checked record stays checked.
 */
export function withoutHistory<T extends TurnToSave>(record: T): T {
  if (record.history === undefined && record.idempotency === undefined) return record;
  const { history: _history, idempotency: _idempotency, ...rest } = record;
  const copy = Object.freeze(rest) as T;
  if (checked.has(record)) checked.add(copy);
  return copy;
}

/** Throws a `TypeError` naming the first bad field of a history message. */
function assertStoredMessage(message: StoredMessage): void {
  if (typeof message !== 'object' || message === null) throw new TypeError('a message must be an object');
  assertStoreKey(message.id, 'message.id');
  if (!MESSAGE_ROLES.has(message.role))
    throw new TypeError('message.role must be one of user, assistant, system, tool');
  if (typeof message.content !== 'string') throw new TypeError('message.content must be a string');
  parseTimestamp(message.createdAt, 'message.createdAt');
}

/** Throws a `RangeError` unless `limit` is a non-negative integer (0 loads nothing). */
export function assertHistoryLimit(limit: number): void {
  if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError('limit must be a non-negative integer');
}

/** Throws a `TypeError` naming the first bad field of an OAuth token set. */
export function assertOAuthToken(token: StoredOAuthToken): void {
  if (typeof token !== 'object' || token === null) throw new TypeError('an OAuth token must be an object');
  assertStoreKey(token.tenantId, 'tenantId');
  assertStoreKey(token.provider, 'provider');
  if (typeof token.accessToken !== 'string' || token.accessToken.length === 0)
    throw new TypeError('accessToken must be a non-empty string');
  if (token.refreshToken !== null && typeof token.refreshToken !== 'string')
    throw new TypeError('refreshToken must be a string or null');
  if (typeof token.tokenType !== 'string' || token.tokenType.length === 0)
    throw new TypeError('tokenType must be a non-empty string');
  if (token.scope !== null && typeof token.scope !== 'string') throw new TypeError('scope must be a string or null');
  if (token.expiresAt !== null) parseTimestamp(token.expiresAt, 'expiresAt');
}

/** Throws a `TypeError` unless `ttlMs` is a positive, finite number of milliseconds. */
export function assertTtl(ttlMs: number): void {
  if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs <= 0)
    throw new TypeError('ttlMs must be a positive number of milliseconds');
}

/** Serialises settings overrides to JSON, throwing a `TypeError` unless they are a plain JSON object. */
export function serialiseSettingsOverrides(overrides: Record<string, unknown>): string {
  if (typeof overrides !== 'object' || overrides === null || Array.isArray(overrides)) {
    throw new TypeError('settings overrides must be an object');
  }
  return JSON.stringify(overrides);
}

/** Serialises a message's `data` for storage: null when absent. */
export function serialiseMessageData(data: unknown): string | null {
  return data === undefined ? null : JSON.stringify(data);
}

/** Longest OAuth state record (JSON text) a store accepts. */
const MAX_OAUTH_STATE_RECORD_LENGTH = 16_384;

/** Throws a `TypeError` naming the first bad argument of `Store.putOAuthState`. */
export function assertOAuthStateInput(state: string, record: string, expiresAtMs: number): void {
  assertStoreKey(state, 'state');
  if (typeof record !== 'string' || record.length === 0 || record.length > MAX_OAUTH_STATE_RECORD_LENGTH) {
    throw new TypeError(`record must be a string of 1 to ${MAX_OAUTH_STATE_RECORD_LENGTH} characters`);
  }
  if (typeof expiresAtMs !== 'number' || !Number.isSafeInteger(expiresAtMs) || expiresAtMs < 0) {
    throw new TypeError('expiresAtMs must be a non-negative integer of epoch milliseconds');
  }
}

/** Throws a `TypeError` unless `state` is a string; any string may be looked up (one never stored is simply absent). */
export function assertOAuthStateLookup(state: string): void {
  if (typeof state !== 'string') throw new TypeError('state must be a string');
}
