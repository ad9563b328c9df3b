import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyText, headerValue, mutatedChatRequest, READ_HEADERS, routePath } from './support/http-arbitraries.js';
import { exchange } from './support/raw-http.js';
import { type ReliabilityActor, serveReliabilityActor, unexpectedErrors } from './support/reliability-actor.js';
import type { ServeHandle } from '../../src/adapter/serve-options.js';
import { assertRawAnswerInvariants } from './support/response-invariants.js';

// Bad input over a real socket to the Node adapter: bytes a Fetch `Request` cannot even
// express (Latin-1 and control characters in header values, junk header lines, request
// targets that are not paths, conflicting or lying framing). Node's HTTP parser rejects some
// before the app sees them (400/413/414/431 without a body, no X-Request-Id); everything the
// app answers keeps every promise of the in-process suite.

const anyByte = fc.integer({ min: 0, max: 255 }).map((code) => String.fromCharCode(code));
const rawText = (maxLength: number) => fc.string({ unit: anyByte, maxLength });
const token = fc.stringMatching(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,24}$/);

const headerLine = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(fc.constantFrom(...READ_HEADERS), fc.oneof(headerValue, rawText(60)))
      .map(([name, value]) => `${name}: ${value}`),
  },
  { weight: 1, arbitrary: fc.tuple(token, rawText(60)).map(([name, value]) => `${name}: ${value}`) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(...READ_HEADERS), headerValue)
      .map(([name, value]) => `${name}:${value}\r\n ${value}`),
  },
  { weight: 1, arbitrary: rawText(40) },
);

type Framing = 'exact' | 'declared-shorter' | 'declared-longer' | 'chunked' | 'broken-chunks' | 'none' | 'both';

function frame(body: string, framing: Framing): { headers: string[]; payload: string } {
  const length = Buffer.byteLength(body, 'latin1');
  const chunked = `${length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
  switch (framing) {
    case 'exact':
      return { headers: [`Content-Length: ${length}`], payload: body };
    case 'declared-shorter':
      return { headers: [`Content-Length: ${Math.floor(length / 2)}`], payload: body };
    case 'declared-longer':
      return { headers: [`Content-Length: ${length + 10}`], payload: body };
    case 'chunked':
      return { headers: ['Transfer-Encoding: chunked'], payload: chunked };
    case 'broken-chunks':
      return { headers: ['Transfer-Encoding: chunked'], payload: `zz\r\n${body}\r\n` };
    case 'both':
      return { headers: [`Content-Length: ${length}`, 'Transfer-Encoding: chunked'], payload: chunked };
    case 'none':
      return { headers: [], payload: body };
  }
}

describe('bad input over a real socket (Node adapter)', () => {
  let actor: ReliabilityActor & { server: ServeHandle };
  beforeAll(async () => {
    actor = await serveReliabilityActor();
  });
  afterAll(async () => {
    await actor.server.close();
  });

  it('raw requests with any bytes: no 5xx, app errors are problem+json, the server keeps answering', async () => {
    const { app, server } = actor;
    const patterns = [...new Set(app.routes.filter((route) => route.method !== 'ALL').map((route) => route.path))];
    const request = fc.record({
      method: fc.oneof(fc.constantFrom('GET', 'POST', 'PUT', 'HEAD', 'DELETE', 'OPTIONS'), token),
      target: fc.oneof(
        { weight: 4, arbitrary: routePath(patterns) },
        {
          weight: 1,
          arbitrary: fc.constantFrom('*', 'http://evil.example/health', '/health#x', '/%zz', '/\\..\\settings'),
        },
        { weight: 1, arbitrary: rawText(30) },
      ),
      headers: fc.array(headerLine, { maxLength: 6 }),
      body: fc.oneof(bodyText(mutatedChatRequest), rawText(200)),
      framing: fc.constantFrom<Framing>(
        'exact',
        'exact',
        'exact',
        'declared-shorter',
        'declared-longer',
        'chunked',
        'broken-chunks',
        'none',
        'both',
      ),
    });
    let answered = 0;
    await fc.assert(
      fc.asyncProperty(request, async ({ method, target, headers, body, framing }) => {
        const framed = frame(body, framing);
        const head = [`${method} ${target} HTTP/1.1`, 'Host: actor.localhost', ...headers, ...framed.headers].join(
          '\r\n',
        );
        const { response, raw } = await exchange(server.url, [`${head}\r\n\r\n${framed.payload}`], {
          timeoutMs: 3_000,
        });
        if (response === null) {
          expect(raw, 'a partial response').toBe('');
          return;
        }
        answered += 1;
        assertRawAnswerInvariants(response, method);
      }),
      { numRuns: 300 },
    );
    expect(answered).toBeGreaterThan(200);
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    const invoke = await fetch(`${server.url}/agent/invoke`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ user_identifier: 'u', session_id: 's', message: 'still here?' }),
    });
    expect(invoke.status).toBe(200);
    expect(unexpectedErrors(actor.logs)).toEqual([]);
    expect(((await (await fetch(`${server.url}/stats`)).json()) as { errors: number }).errors).toBe(0);
  });

  it('a hostile Host never changes the routed path: GET /health answers /health, a 400, or (a plain name not on loopback) a 421', async () => {
    const hostChar = fc.oneof(
      fc.constantFrom('/', '?', '#', '@', '\\', ' ', '%', ':', '.', '[', ']', 'a', '1', '\u00c3'),
      anyByte,
    );
    const host = fc
      .tuple(
        fc.string({ unit: hostChar, maxLength: 24 }),
        fc.constantFrom('', '/stats', '/stats?', '/settings#', '/api/actor/metadata?', '/agent/invoke?'),
      )
      .map(([start, end]) => start + end);
    await fc.assert(
      fc.asyncProperty(host, async (value) => {
        const { response, raw } = await exchange(
          actor.server.url,
          [`GET /health HTTP/1.1\r\nHost: ${value}\r\nConnection: close\r\n\r\n`],
          { timeoutMs: 3_000 },
        );
        if (response === null) {
          expect(raw, 'a partial response').toBe('');
        } else if (response.status === 200) {
          expect(JSON.parse(response.body)).toHaveProperty('instance_id');
        } else if (response.status === 421) {
          expect(JSON.parse(response.body)).toMatchObject({ status: 421, code: 'host_not_allowed' });
        } else {
          expect(response.status, raw).toBe(400);
          if (response.body !== '')
            expect(JSON.parse(response.body)).toMatchObject({
              status: 400,
              code: expect.stringMatching(/^(invalid_host|bad_request)$/),
            });
        }
      }),
      // The Host of issue 16: its punycode form is as long as the Host itself, so 1.x's URL check let it through.
      { numRuns: 300, examples: [['a\u00c3/stats?'], ['a\u00c3/api/actor/metadata?']] },
    );
  });
});
