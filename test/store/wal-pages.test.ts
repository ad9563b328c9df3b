import { describe, expect, it } from 'vitest';
import { measureWalPagesPerTurn } from './wal-pages-per-turn.js';

describe('SQLite pages written per invoke', () => {
  it('writes at most 2 WAL pages per turn with 32 turns in flight, on a file with 20,000 turns behind it', async () => {
    const figures = await measureWalPagesPerTurn({ turns: 2_000, concurrency: 32, warmupTurns: 20_000 });
    expect(figures.invocations).toBe(22_000);
    expect(figures.pagesPerTurn).toBeLessThanOrEqual(2);
  }, 120_000);
});
