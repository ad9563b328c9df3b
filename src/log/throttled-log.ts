import type { LogEventAt } from './log-events.js';
import type { Logger } from './logger.js';

/** A log line written at most once per interval; the next one says how many were left out. */
export type ThrottledLog = (fields: Record<string, unknown>) => void;

/**
 * Writes `event` at `level` the first time, then at most once per `intervalMs`; the lines left
 * out in between are counted in the next one's `suppressed`. For failures that repeat on every
 * request while a cause lasts (a full disk): the cause shows at once without a line per request.
 * @param logger where the lines go
 * @param level the level of every line
 * @param event the event of every line
 * @param intervalMs least time between two lines
 * @param now the clock, for tests
 */
export function throttledLog<Level extends 'warn' | 'error'>(
  logger: Logger,
  level: Level,
  event: LogEventAt<Level>,
  intervalMs: number,
  now: () => number = Date.now,
): ThrottledLog {
  let lastMs: number | undefined;
  let suppressed = 0;
  return (fields) => {
    const time = now();
    if (lastMs !== undefined && time - lastMs < intervalMs) {
      suppressed += 1;
      return;
    }
    const line = suppressed > 0 ? { ...fields, suppressed } : fields;
    // The signature ties `event` to `level`; TypeScript cannot follow that through the generic.
    if (level === 'warn') logger.warn(event as LogEventAt<'warn'>, line);
    else logger.error(event as LogEventAt<'error'>, line);
    lastMs = time;
    suppressed = 0;
  };
}
