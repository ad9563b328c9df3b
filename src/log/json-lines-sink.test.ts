import { type AddressInfo, createServer } from 'node:net';
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { flushPendingLines, jsonLinesSink } from './json-lines-sink.js';
import { createLogger } from './logger.js';

const record = (level: 'info' | 'warn' | 'error', event: string, fields: Record<string, unknown> = {}) => ({
  time: 't',
  level,
  event,
  ...fields,
});

describe('jsonLinesSink', () => {
  afterEach(() => {
    flushPendingLines();
    vi.restoreAllMocks();
  });

  it('writes the info lines of the next 10 ms as one write', async () => {
    const out = vi.spyOn(console, 'log').mockImplementation(() => {});
    jsonLinesSink(record('info', 'first'));
    await new Promise((resolve) => setTimeout(resolve, 1));
    jsonLinesSink(record('info', 'second'));
    expect(out).not.toHaveBeenCalled();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(out).toHaveBeenCalledTimes(1);
    expect(
      String(out.mock.calls[0]![0])
        .split('\n')
        .map((line) => JSON.parse(line).event),
    ).toEqual(['first', 'second']);
  });

  it('writes a warning at once, after the info lines held before it', () => {
    const order: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((text: string) =>
      order.push(...text.split('\n').map((line) => JSON.parse(line).event)),
    );
    vi.spyOn(console, 'error').mockImplementation((text: string) => order.push(JSON.parse(text).event));
    jsonLinesSink(record('info', 'held'));
    jsonLinesSink(record('warn', 'warned'));
    expect(order).toEqual(['held', 'warned']);
  });

  it('writes at once when 256 lines are held', () => {
    const out = vi.spyOn(console, 'log').mockImplementation(() => {});
    for (let index = 0; index < 256; index += 1) jsonLinesSink(record('info', `line_${index}`));
    expect(out).toHaveBeenCalledTimes(1);
    expect(String(out.mock.calls[0]![0]).split('\n')).toHaveLength(256);
  });

  it('redacts secret fields and reduces errors to name and message (and what they carry)', () => {
    const out = vi.spyOn(console, 'error').mockImplementation(() => {});
    jsonLinesSink(record('error', 'failed', { api_key: 'k-123', error: new TypeError('boom') }));
    expect(JSON.parse(String(out.mock.calls[0]![0]))).toMatchObject({
      api_key: '[redacted]',
      error: { name: 'TypeError', message: 'boom' },
    });
  });

  it("shows an error's cause chain with its system fields, never a stack: a refused fetch names the address and port", async () => {
    const out = vi.spyOn(console, 'error').mockImplementation(() => {});
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await fetch(`http://127.0.0.1:${port}/`).catch((error: unknown) => error);
    jsonLinesSink(record('warn', 'failed', { error: refused }));
    const line = String(out.mock.calls[0]![0]);
    expect(JSON.parse(line).error).toMatchObject({
      name: 'TypeError',
      message: 'fetch failed',
      cause: { code: 'ECONNREFUSED', syscall: 'connect', address: '127.0.0.1', port },
    });
    expect(line).not.toContain('    at ');
  });

  it("follows a cause chain only so deep, and shows an AggregateError's errors", () => {
    const out = vi.spyOn(console, 'error').mockImplementation(() => {});
    let error = new Error('level 9');
    for (let level = 8; level >= 0; level -= 1) error = new Error(`level ${level}`, { cause: error });
    jsonLinesSink(record('warn', 'deep', { error, many: new AggregateError([new Error('a'), 'b'], 'both failed') }));
    const logged = JSON.parse(String(out.mock.calls[0]![0]));
    expect(logged.error.cause.cause.cause.cause).toEqual({ name: 'Error', message: 'level 4' });
    expect(logged.many).toEqual({
      name: 'AggregateError',
      message: 'both failed',
      errors: [{ name: 'Error', message: 'a' }, 'b'],
    });
  });

  it('redacts a secret field however deep, and a secret named after plain fields were seen', () => {
    const out = vi.spyOn(console, 'error').mockImplementation(() => {});
    const lines = () => out.mock.calls.map((call) => JSON.parse(String(call[0])));
    jsonLinesSink(record('warn', 'plain', { tool_calls: ['a', 'b'], count: 1 }));
    jsonLinesSink(record('warn', 'top', { count: 1, session_token: 't-1' }));
    jsonLinesSink(record('warn', 'nested', { upstream: { headers: { authorization: 'Bearer x' } } }));
    jsonLinesSink(record('warn', 'listed', { tool_calls: [{ name: 'a', api_key: 'k-2' }] }));
    jsonLinesSink(record('warn', 'error_in_list', { errors: [new RangeError('far')] }));
    expect(lines()).toMatchObject([
      { event: 'plain', tool_calls: ['a', 'b'] },
      { event: 'top', session_token: '[redacted]' },
      { event: 'nested', upstream: { headers: { authorization: '[redacted]' } } },
      { event: 'listed', tool_calls: [{ name: 'a', api_key: '[redacted]' }] },
      { event: 'error_in_list', errors: [{ name: 'RangeError', message: 'far' }] },
    ]);
    expect(JSON.stringify(out.mock.calls)).not.toMatch(/t-1|Bearer x|k-2/);
  });
});

describe('a process that exits right after logging', () => {
  it('still writes the held lines (process.exit in the same turn)', () => {
    const script = `
      const { createLogger } = await import(${JSON.stringify(new URL('./logger.ts', import.meta.url).pathname)});
      const log = createLogger();
      log.info('before_exit', { n: 1 });
      log.info('before_exit', { n: 2 });
      process.exit(3);
    `;
    let output = '';
    try {
      execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    } catch (error) {
      const failed = error as { status: number; stdout: string };
      expect(failed.status).toBe(3);
      output = failed.stdout;
    }
    expect(
      output
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toMatchObject([
      { event: 'before_exit', n: 1 },
      { event: 'before_exit', n: 2 },
    ]);
  });

  it('is the default sink of createLogger', async () => {
    const out = vi.spyOn(console, 'log').mockImplementation(() => {});
    createLogger<'via_logger'>().info('via_logger');
    flushPendingLines();
    expect(JSON.parse(String(out.mock.calls[0]![0]))).toMatchObject({ event: 'via_logger', level: 'info' });
    vi.restoreAllMocks();
  });
});
