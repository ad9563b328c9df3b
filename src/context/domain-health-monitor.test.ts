import { describe, expect, it } from 'vitest';
import { type DomainHealth, DomainHealthMonitor } from './domain-health-monitor.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('DomainHealthMonitor', () => {
  it('reports not checked yet until a run, then the last result; never runs a check on status()', async () => {
    let calls = 0;
    const monitor = new DomainHealthMonitor(
      { weather: () => ({ status: 'pass', output: `call ${++calls}` }) },
      { timeoutMs: 1_000 },
    );
    expect(monitor.status()).toEqual({ weather: { status: 'warn', output: 'not checked yet' } });
    expect(calls).toBe(0);
    monitor.refresh();
    await tick();
    expect(monitor.status()).toEqual({ weather: { status: 'pass', output: 'call 1' } });
  });

  it('runs once while a run is in flight and again only when the last run is stale', async () => {
    let calls = 0;
    let release: (health: DomainHealth) => void = () => {};
    const monitor = new DomainHealthMonitor(
      {
        weather: () => {
          calls += 1;
          return new Promise<DomainHealth>((resolve) => {
            release = resolve;
          });
        },
      },
      { timeoutMs: 60_000, maxAgeMs: 0 },
    );
    monitor.refresh();
    monitor.refresh();
    expect(calls).toBe(1);
    release({ status: 'fail', output: 'down' });
    await tick();
    expect(monitor.status().weather).toEqual({ status: 'fail', output: 'down' });
    monitor.refresh();
    expect(calls).toBe(2);
  });

  it('leaves a fresh result alone within maxAgeMs', async () => {
    let calls = 0;
    const monitor = new DomainHealthMonitor(
      { weather: () => ({ status: 'pass', output: String(++calls) }) },
      { timeoutMs: 1_000, maxAgeMs: 60_000 },
    );
    monitor.refresh();
    await tick();
    monitor.refresh();
    expect(calls).toBe(1);
  });

  it('reports a check that answers the wrong shape as failing', async () => {
    const monitor = new DomainHealthMonitor(
      { weather: () => undefined as unknown as DomainHealth },
      { timeoutMs: 1_000 },
    );
    monitor.refresh();
    await tick();
    expect(monitor.status().weather).toMatchObject({ status: 'fail' });
  });
});
