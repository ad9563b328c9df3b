import { REDACTED } from '../core/redacted.js';
import type { LogSink } from './log-record.js';

/** Field names whose values never reach a log line. */
const SECRET_FIELD = /(pass(word)?|secret|token|api[_-]?key|authorization|cookie|mesh[_-]?key)$/i;

/** Lines held before a write is forced. */
const MAX_PENDING_LINES = 256;

/** How long a debug or info line may wait for others to share its write. */
const FLUSH_DELAY_MS = 10;

/** Whether each field name seen so far names a secret (names are few and fixed: checked once each). */
const secretFieldNames = new Map<string, boolean>();

let pending: string[] = [];
let flushTimer: ReturnType<typeof setTimeout> | undefined;
let exitHookInstalled = false;

/**
 * Writes a record as one JSON line on standard output (standard error for warnings and errors).
 * Uses only `console`, so it works the same on Node, Bun and Deno.
 *
 * Debug and info lines go out together, in one write at most 10 ms after the first of them (or
 * at once when 256 are held): under load a line per invoke otherwise costs a write call each.
 * Warnings and errors are written at once, after the lines held before them, and the held lines
 * are written when the process exits; only a kill (SIGKILL) can lose the last 10 ms of lines.
 */
export const jsonLinesSink: LogSink = function jsonLinesSink(record) {
  const line = isPlainRecord(record) ? JSON.stringify(record) : JSON.stringify(record, redactErrors);
  if (record.level === 'warn' || record.level === 'error') {
    flushPendingLines();
    console.error(line);
    return;
  }
  pending.push(line);
  if (pending.length >= MAX_PENDING_LINES) flushPendingLines();
  else flushTimer ??= setTimeout(flushPendingLines, FLUSH_DELAY_MS);
  if (!exitHookInstalled) installExitHook();
};

/** Writes the held debug and info lines now; called on exit, and by tests that read output at once. */
export function flushPendingLines(): void {
  if (flushTimer !== undefined) clearTimeout(flushTimer);
  flushTimer = undefined;
  if (pending.length === 0) return;
  const text = pending.join('\n');
  pending = [];
  console.log(text);
}

function installExitHook(): void {
  exitHookInstalled = true;
  const host = globalThis as { process?: { once?: (event: 'exit', listener: () => void) => unknown } };
  host.process?.once?.('exit', flushPendingLines);
}

function isSecretFieldName(key: string): boolean {
  let secret = secretFieldNames.get(key);
  if (secret === undefined) {
    secret = SECRET_FIELD.test(key);
    secretFieldNames.set(key, secret);
  }
  return secret;
}

/**
 * True when `redactErrors` would change nothing in `record`: no field names a secret, and no
 * value is an object (an error, or fields nested in it) other than an array of plain values.
 * Such a record, as most are, is written without a replacer, which is the slower path of
 * `JSON.stringify`.
 */
function isPlainRecord(record: Readonly<Record<string, unknown>>): boolean {
  for (const key in record) {
    if (isSecretFieldName(key)) return false;
    const value = record[key];
    if (typeof value !== 'object' || value === null) continue;
    if (!Array.isArray(value)) return false;
    for (const item of value) if (typeof item === 'object' && item !== null) return false;
  }
  return true;
}

function redactErrors(key: string, value: unknown): unknown {
  if (key !== '' && isSecretFieldName(key) && value !== undefined && value !== null) return REDACTED;
  if (value instanceof Error) return loggedError(value, 0);
  return value;
}

/** The system error fields that tell one failure from another (refused, DNS, TLS, time-out): Node's `code`, `errno`, `syscall`, `hostname`, `address`, `port`. */
const SYSTEM_ERROR_FIELDS = ['code', 'errno', 'syscall', 'hostname', 'address', 'port'] as const;
/** How deep a cause chain is followed; an `AggregateError` shows this many of its errors. */
const CAUSE_DEPTH = 4;

/**
 * An error as a log line shows it: name, message, its system error fields, and its cause chain
 * (`fetch failed` → `connect ECONNREFUSED 127.0.0.1:23301`, code, address, port), never a stack.
 */
function loggedError(error: Error, depth: number): Record<string, unknown> {
  const fields: Record<string, unknown> = { name: error.name, message: error.message };
  for (const field of SYSTEM_ERROR_FIELDS) {
    const value = (error as unknown as Record<string, unknown>)[field];
    if (typeof value === 'string' || typeof value === 'number') fields[field] = value;
  }
  if (depth >= CAUSE_DEPTH) return fields;
  if (error instanceof AggregateError)
    fields.errors = error.errors
      .slice(0, CAUSE_DEPTH)
      .map((inner: unknown) => (inner instanceof Error ? loggedError(inner, depth + 1) : String(inner)));
  if (error.cause instanceof Error) fields.cause = loggedError(error.cause, depth + 1);
  else if (typeof error.cause === 'string') fields.cause = error.cause;
  return fields;
}
