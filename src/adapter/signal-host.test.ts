import { describe, expect, it, vi } from 'vitest';
import { processSignals, type ShutdownSignal, signalHost } from './signal-host.js';

describe('signalHost', () => {
  it('subscribes to SIGTERM and SIGINT, names the signal, and unsubscribes the same listeners', () => {
    const subscribed = new Map<ShutdownSignal, () => void>();
    const removed: [ShutdownSignal, () => void][] = [];
    const exit = vi.fn();
    const host = signalHost(
      (signal, listener) => subscribed.set(signal, listener),
      (signal, listener) => removed.push([signal, listener]),
      exit,
    );
    const handler = vi.fn();
    const stop = host.onShutdownSignal(handler);
    expect([...subscribed.keys()]).toEqual(['SIGTERM', 'SIGINT']);
    subscribed.get('SIGINT')?.();
    expect(handler).toHaveBeenCalledWith('SIGINT');
    stop();
    expect(removed).toEqual([...subscribed.entries()]);
    host.exit(3);
    expect(exit).toHaveBeenCalledWith(3);
  });
});

describe('processSignals', () => {
  it('adds and removes process listeners without touching others', () => {
    const before = process.listenerCount('SIGTERM');
    const stop = processSignals.onShutdownSignal(() => {});
    expect(process.listenerCount('SIGTERM')).toBe(before + 1);
    expect(process.listenerCount('SIGINT')).toBeGreaterThan(0);
    stop();
    expect(process.listenerCount('SIGTERM')).toBe(before);
  });
});
