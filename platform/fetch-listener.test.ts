import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CliError } from '../cli/library.js';
import { type FetchListener, listenFetch } from './fetch-listener.js';
import { GATEWAY_HEADERS_TIMEOUT_MS, GATEWAY_REQUEST_TIMEOUT_MS } from './platform-defaults.js';

const listeners: FetchListener[] = [];
afterEach(async () => {
  await Promise.all(listeners.splice(0).map((listener) => listener.close()));
});

async function listen(timeouts: { headersTimeoutMs?: number; requestTimeoutMs?: number } = {}): Promise<number> {
  const listener = await listenFetch(async (request) => new Response(await request.text()), {
    port: 0,
    host: '127.0.0.1',
    ...timeouts,
  });
  listeners.push(listener);
  return listener.port;
}

/** Opens a socket, writes `sent` and never finishes the request; resolves with what came back and how long the socket lived. */
function stall(port: number, sent: string): Promise<{ answer: string; openMs: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(sent));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ answer, openMs: Date.now() - started }));
  });
}

describe('listenFetch', () => {
  it('has header and body time-outs by default (a slowloris cannot hold its sockets)', () => {
    expect(GATEWAY_HEADERS_TIMEOUT_MS).toBe(10_000);
    expect(GATEWAY_REQUEST_TIMEOUT_MS).toBe(60_000);
  });

  it('answers 408 and closes a connection whose headers never end', async () => {
    const port = await listen({ headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const { answer, openMs } = await stall(port, 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(openMs).toBeLessThan(3_000);
  });

  it('answers 408 and closes a connection whose body never ends', async () => {
    const port = await listen({ headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const { answer, openMs } = await stall(
      port,
      'POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\nonly part of it',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(openMs).toBeLessThan(3_000);
  });

  it('refuses a port in use with port_in_use, naming the option to change', async () => {
    const port = await listen();
    const refusal = await listenFetch(() => new Response('x'), {
      port,
      host: '127.0.0.1',
      option: '--replica-ports',
    }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(CliError);
    expect((refusal as CliError).message).toBe(`port ${port} on 127.0.0.1 is in use: pass another --replica-ports`);
  });
});
