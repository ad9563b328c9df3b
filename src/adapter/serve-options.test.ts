import { describe, expect, it } from 'vitest';
import { DEFAULT_GRACE_MS, DEFAULT_PORT, localUrl, resolveServeOptions } from './serve-options.js';

describe('resolveServeOptions', () => {
  it('defaults to port 8080, 0.0.0.0, a 10 s grace period and signal handling', () => {
    expect(resolveServeOptions({}, {})).toEqual({
      port: DEFAULT_PORT,
      hostname: '0.0.0.0',
      graceMs: DEFAULT_GRACE_MS,
      signals: true,
    });
    expect(DEFAULT_PORT).toBe(8080);
    expect(DEFAULT_GRACE_MS).toBe(10_000);
  });

  it('reads PORT, HOST and SHUTDOWN_GRACE_MS from the environment', () => {
    expect(resolveServeOptions({}, { PORT: '3000', SHUTDOWN_GRACE_MS: '2500' })).toMatchObject({
      port: 3000,
      graceMs: 2500,
    });
    expect(resolveServeOptions({}, { HOST: '127.0.0.1' }).hostname).toBe('127.0.0.1');
    expect(resolveServeOptions({ hostname: '::1' }, { HOST: '127.0.0.1' }).hostname).toBe('::1');
    expect(resolveServeOptions({}, { PORT: ' 0 ' }).port).toBe(0);
    expect(resolveServeOptions({}, { PORT: '', SHUTDOWN_GRACE_MS: '' })).toMatchObject({ port: 8080, graceMs: 10_000 });
  });

  it('lets explicit options win over the environment', () => {
    const resolved = resolveServeOptions(
      { port: 0, hostname: '127.0.0.1', graceMs: 0, signals: false },
      { PORT: '3000', SHUTDOWN_GRACE_MS: '2500' },
    );
    expect(resolved).toEqual({ port: 0, hostname: '127.0.0.1', graceMs: 0, signals: false });
  });

  it.each(['abc', '-1', '65536', '80.5', '8080x', '0x50', '1e3'])('refuses PORT=%j at once', (port) => {
    expect(() => resolveServeOptions({}, { PORT: port })).toThrow(/PORT must be an integer from 0 to 65535/);
  });

  it.each([-1, 65_536, 1.5, Number.NaN])('refuses the port option %j at once', (port) => {
    expect(() => resolveServeOptions({ port }, {})).toThrow(/port must be an integer from 0 to 65535/);
  });

  it.each(['0', '-5', 'soon', '1.5'])('refuses SHUTDOWN_GRACE_MS=%j at once', (grace) => {
    expect(() => resolveServeOptions({}, { SHUTDOWN_GRACE_MS: grace })).toThrow(
      /SHUTDOWN_GRACE_MS must be a positive integer/,
    );
  });

  it('refuses a negative or fractional graceMs option and an empty hostname', () => {
    expect(() => resolveServeOptions({ graceMs: -1 }, {})).toThrow(/graceMs/);
    expect(() => resolveServeOptions({ graceMs: 0.5 }, {})).toThrow(/graceMs/);
    expect(() => resolveServeOptions({ hostname: ' ' }, {})).toThrow(/hostname/);
  });
});

describe('localUrl', () => {
  it('turns wildcard addresses into loopback ones and brackets IPv6', () => {
    expect(localUrl('0.0.0.0', 8080)).toBe('http://127.0.0.1:8080');
    expect(localUrl('::', 81)).toBe('http://[::1]:81');
    expect(localUrl('::1', 82)).toBe('http://[::1]:82');
    expect(localUrl('localhost', 83)).toBe('http://localhost:83');
  });
});
