import { describe, expect, it } from 'vitest';
import { createLogger, createMemorySink } from './logger.js';
import { throttledLog } from './throttled-log.js';

describe('throttledLog', () => {
  it('writes the first line, then one per interval counting the ones left out', () => {
    const sink = createMemorySink();
    const time = { now: 0 };
    const log = throttledLog(createLogger({ sink }), 'error', 'history_write_failed', 60_000, () => time.now);
    for (let second = 0; second < 150; second += 1) {
      time.now = second * 1_000;
      log({ tenant_id: 't' });
    }
    expect(sink.records.map(({ event, level, suppressed }) => ({ event, level, suppressed }))).toEqual([
      { event: 'history_write_failed', level: 'error', suppressed: undefined },
      { event: 'history_write_failed', level: 'error', suppressed: 59 },
      { event: 'history_write_failed', level: 'error', suppressed: 59 },
    ]);
  });
});
