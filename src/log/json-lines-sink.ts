import { REDACTED } from '../core/redacted.js';
import type { LogSink } from './log-record.js';

/** Field names whose values never reach a log line. */
const SECRET_FIELD = /(pass(word)?|secret|token|api[_-]?key|authorization|cookie|mesh[_-]?key)$/i;

/** Lines held before a write is forced even inside one turn of the event loop. */
const MAX_PENDING_LINES = 256;

let pending: string[] = [];
let flushTimer: ReturnType<typeof setTimeout> | undefined;
let exitHookInstalled = false;

/**
 * Writes a record as one JSON line on standard output (standard error for warnings and errors).
 * Uses only `console`, so it works the same on Node, Bun and Deno.
 *
 * Debug and info lines written in one turn of the event loop go out as one write at the end of
 * it (at most 256 lines at once): under load a line per invoke otherwise costs a write call each.
 * Warnings and errors are written at once, after the lines held before them, and the held lines
 * are written when the process exits; only a kill (SIGKILL) can lose the last turn's lines.
 */
export const jsonLinesSink: LogSink = function jsonLinesSink(record) {
  const line = JSON.stringify(record, redactErrors);
  if (record.level === 'warn' || record.level === 'error') {
    flushPendingLines();
    console.error(line);
    return;
  }
  pending.push(line);
  if (pending.length >= MAX_PENDING_LINES) flushPendingLines();
  else flushTimer ??= setTimeout(flushPendingLines, 0);
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

function redactErrors(key: string, value: unknown): unknown {
  if (key !== '' && SECRET_FIELD.test(key) && value !== undefined && value !== null) return REDACTED;
  if (value instanceof Error) return { name: value.name, message: value.message };
  return value;
}
