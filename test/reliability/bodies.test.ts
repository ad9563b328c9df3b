import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServeHandle } from '../../src/adapter/serve-options.js';
import { exchange, openSocket } from './support/raw-http.js';
import { type ReliabilityActor, serveReliabilityActor, unexpectedErrors } from './support/reliability-actor.js';
import { assertRawAnswerInvariants, assertResponseInvariants } from './support/response-invariants.js';

// Oversized, truncated and slow request bodies against a real Node server (the Node adapter
// on loopback), with a small body limit so oversize is cheap to send.

const BODY_LIMIT = 8192;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const chatBody = (message: string) =>
  JSON.stringify({ user_identifier: 'body-user', session_id: 'body-session', message });

function head(method: string, path: string, headers: readonly string[]): string {
  return `${[`${method} ${path} HTTP/1.1`, 'Host: actor.localhost', 'Connection: close', ...headers].join('\r\n')}\r\n\r\n`;
}

/** Splits `text` into `count` pieces of about the same size. */
function pieces(text: string, count: number): string[] {
  const size = Math.ceil(text.length / count);
  return Array.from({ length: count }, (_, index) => text.slice(index * size, (index + 1) * size)).filter(Boolean);
}

describe('request bodies on a real Node server', () => {
  let actor: ReliabilityActor & { server: ServeHandle };
  let url: string;
  beforeAll(async () => {
    actor = await serveReliabilityActor({ BODY_LIMIT_BYTES: String(BODY_LIMIT) });
    url = actor.server.url;
  });
  afterAll(async () => {
    await actor.server.close();
  });

  const stats = async () => (await (await fetch(`${url}/stats`)).json()) as { invocations: number; errors: number };

  /** Waits (bounded) until no request is in flight: a request the client abandoned must not stay open. */
  async function settled(): Promise<void> {
    for (let attempt = 0; attempt < 100 && actor.app.actor.lifecycle.inFlight > 0; attempt += 1) await sleep(20);
    expect(actor.app.actor.lifecycle.inFlight).toBe(0);
  }

  async function serverErrorsCounted(): Promise<string[]> {
    const text = await (await fetch(`${url}/metrics`)).text();
    return text.split('\n').filter((line) => line.startsWith('http_requests_total') && /status="5\d\d"/.test(line));
  }

  it('a Content-Length over the limit gets a 413 problem before the body is sent', async () => {
    for (const path of ['/agent/invoke', '/settings']) {
      const method = path === '/settings' ? 'PUT' : 'POST';
      const { response } = await exchange(
        url,
        [head(method, path, ['Content-Type: application/json', `Content-Length: ${10 * 1024 * 1024}`])],
        { end: false },
      );
      expect(response?.status, path).toBe(413);
      assertResponseInvariants(response!, method);
      expect(JSON.parse(response!.body)).toMatchObject({ code: 'payload_too_large' });
    }
  });

  it('a chunked body that grows past the limit gets a 413 problem', async () => {
    const chunk = `${(2048).toString(16)}\r\n${'x'.repeat(2048)}\r\n`;
    const { response } = await exchange(url, [
      head('POST', '/agent/invoke', ['Content-Type: application/json', 'Transfer-Encoding: chunked']),
      ...Array.from({ length: 10 }, () => chunk),
      '0\r\n\r\n',
    ]);
    expect(response?.status).toBe(413);
    assertResponseInvariants(response!, 'POST');
  });

  it('a body at the limit is read and validated, not refused', async () => {
    const body = chatBody('y'.repeat(BODY_LIMIT - chatBody('').length));
    expect(Buffer.byteLength(body)).toBe(BODY_LIMIT);
    const response = await fetch(`${url}/agent/invoke`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body,
    });
    expect(response.status).toBe(200);
  });

  it('a body cut short (Content-Length larger than what is sent, then the client closes or resets): nothing counted, nothing logged as an error, no 5xx', async () => {
    const before = await stats();
    const logged = actor.logs.length;
    const body = chatBody('this body never arrives whole');
    for (const path of ['/agent/invoke', '/settings']) {
      const method = path === '/settings' ? 'PUT' : 'POST';
      const start = head(method, path, ['Content-Type: application/json', `Content-Length: ${body.length + 100}`]);
      // The client half-closes after part of the body…
      const halfClosed = await exchange(url, [start, body.slice(0, 20)]);
      if (halfClosed.response) assertRawAnswerInvariants(halfClosed.response, method);
      // …or resets the connection.
      const socket = await openSocket(url);
      socket.write(start + body.slice(0, 20));
      await sleep(50);
      socket.resetAndDestroy();
    }
    await settled();
    expect(await stats()).toEqual(expect.objectContaining({ invocations: before.invocations, errors: before.errors }));
    expect(unexpectedErrors(actor.logs.slice(logged))).toEqual([]);
    expect(await serverErrorsCounted()).toEqual([]);
    const after = await fetch(`${url}/agent/invoke`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: chatBody('and now a whole one'),
    });
    expect(after.status).toBe(200);
  });

  it('a slow body is answered, and other requests are answered while it trickles in', async () => {
    const before = await stats();
    let slowDone = false;
    const body = chatBody('sent a few bytes at a time');
    const slow = exchange(
      url,
      [
        head('POST', '/agent/invoke', ['Content-Type: application/json', `Content-Length: ${body.length}`]),
        ...pieces(body, 20),
      ],
      { gapMs: 40 },
    ).finally(() => {
      slowDone = true;
    });
    await sleep(100);
    for (let index = 0; index < 5; index += 1) {
      expect((await fetch(`${url}/health`)).status).toBe(200);
      const quick = await fetch(`${url}/agent/invoke`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: chatBody(`quick ${index}`),
      });
      expect(quick.status).toBe(200);
    }
    expect(slowDone, 'the quick requests waited for the slow body').toBe(false);
    const { response } = await slow;
    expect(response?.status).toBe(200);
    expect(JSON.parse(response!.body)).toMatchObject({ status: 'completed', session_id: 'body-session' });
    expect((await stats()).invocations).toBe(before.invocations + 6);
  });

  it('many slow bodies at once: every one answered and counted exactly once', async () => {
    const before = await stats();
    const slowBodies = Array.from({ length: 40 }, (_, index) => {
      const body = chatBody(`slow body ${index}`);
      return exchange(
        url,
        [
          head('POST', '/agent/invoke', ['Content-Type: application/json', `Content-Length: ${body.length}`]),
          ...pieces(body, 5),
        ],
        { gapMs: 30 },
      );
    });
    const statuses = (await Promise.all(slowBodies)).map((result) => result.response?.status);
    expect(statuses).toEqual(Array.from({ length: 40 }, () => 200));
    expect((await stats()).invocations).toBe(before.invocations + 40);
  });

  it('a body that stalls half-way holds up nothing; when its client gives up, nothing is left in flight', async () => {
    const before = await stats();
    const logged = actor.logs.length;
    const body = chatBody('stalls half-way');
    const stalled = await openSocket(url);
    stalled.write(
      head('POST', '/agent/invoke', ['Content-Type: application/json', `Content-Length: ${body.length}`]) +
        body.slice(0, body.length / 2),
    );
    await sleep(100);
    expect(actor.app.actor.lifecycle.inFlight).toBe(1);
    const other = await fetch(`${url}/agent/invoke`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: chatBody('not held up'),
    });
    expect(other.status).toBe(200);
    stalled.destroy();
    await settled();
    expect((await stats()).invocations).toBe(before.invocations + 1);
    expect(unexpectedErrors(actor.logs.slice(logged))).toEqual([]);
  });
});
