// The workflow proxy against a real upstream `node:http` server on loopback: every method,
// large bodies streamed both ways, header hygiene, a slow upstream and a dead one.
import { createHash } from 'node:crypto';
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_SERVER_TIMEOUTS, type ServeHandle } from '../../src/adapter/node/index.js';
import { defaultActorFeatures } from '../../src/core/actor-definition.js';
import { createActorApp } from '../../src/app/create-actor-app.js';
import { silentLogger } from '../../src/log/logger.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { workflowProxyRouter } from '../../src/surfaces/workflow/index.js';
import { testActorDefinition } from '../../src/testing/create-test-actor.js';
import { within } from '../contract/spawn-actor.js';
import { deadPort, listenOnLoopback, serveOnLoopback, type LoopbackServer } from './loopback.js';

const definition = { ...testActorDefinition, features: { ...defaultActorFeatures, integrationType: 'n8n' as const } };
const OWNER_KEY = 'owner-key';
const MiB = 1024 * 1024;
const LARGE = 24 * MiB;
const CHUNK = 256 * 1024;

/** A promise with its resolve function, to hand a signal from one side of the proxy to the other. */
function signal<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

/** Deterministic bytes: chunk `index` of a pattern, so both sides can hash the same stream. */
function patternChunk(index: number, size = CHUNK): Uint8Array {
  const chunk = new Uint8Array(size);
  for (let offset = 0; offset < size; offset += 1) chunk[offset] = (index * 31 + offset) & 0xff;
  return chunk;
}

function sha256Of(chunks: number, size = CHUNK): string {
  const hash = createHash('sha256');
  for (let index = 0; index < chunks; index += 1) hash.update(patternChunk(index, size));
  return hash.digest('hex');
}

function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((done) => {
    const settle = () => {
      res.off('drain', settle).off('close', settle);
      done();
    };
    res.on('drain', settle).on('close', settle);
  });
}

let upstream: LoopbackServer;
let actor: ServeHandle;
let deadActor: ServeHandle;
let upstreamSawFirstChunk = signal();
let clientSawFirstChunk = signal();
let upstreamResponseClosed = signal();
const held: ServerResponse[] = [];

async function upstreamHandler(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://upstream');
  const route = url.pathname;
  if (route === '/base/echo' || route === '/base/') {
    const body: Buffer[] = [];
    for await (const chunk of req) body.push(chunk as Buffer);
    res.writeHead(200, {
      'Content-Type': 'application/json',
      Connection: 'close, X-Upstream-Hop',
      'X-Upstream-Hop': 'secret',
      'Keep-Alive': 'timeout=1',
    });
    res.end(
      JSON.stringify({
        method: req.method,
        path: route,
        query: url.search,
        headers: req.headers,
        body: Buffer.concat(body).toString(),
      }),
    );
  } else if (route === '/base/stream-up') {
    const hash = createHash('sha256');
    let bytes = 0;
    for await (const chunk of req) {
      if (bytes === 0) upstreamSawFirstChunk.resolve();
      hash.update(chunk as Buffer);
      bytes += (chunk as Buffer).length;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(
      JSON.stringify({ bytes, sha256: hash.digest('hex'), transferEncoding: req.headers['transfer-encoding'] ?? null }),
    );
  } else if (route === '/base/stream-down') {
    const chunks = Number(url.searchParams.get('chunks'));
    res.on('close', () => upstreamResponseClosed.resolve());
    res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
    res.write(patternChunk(0));
    await clientSawFirstChunk.promise;
    for (let index = 1; index < chunks && !res.destroyed; index += 1) {
      if (!res.write(patternChunk(index))) await drainedOrClosed(res);
    }
    res.end();
  } else if (route === '/base/slow') {
    held.push(res);
  } else if (route === '/base/redirect') {
    res.writeHead(302, { Location: `${upstream.url}/base/elsewhere?from=redirect` }).end();
  } else if (route === '/base/cookies') {
    res
      .writeHead(200, [
        ['Set-Cookie', 'a=1; Path=/; HttpOnly'],
        ['Set-Cookie', 'b=2; Path=/'],
        ['Content-Type', 'text/plain'],
      ])
      .end('ok');
  } else if (route === '/base/gzip') {
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Encoding': 'gzip' }).end(gzipSync('decoded once'));
  } else if (route === '/base/teapot') {
    res.writeHead(418, { 'Content-Type': 'text/plain' }).end('short and stout');
  } else {
    res.writeHead(404).end();
  }
}

function actorWith(baseUrl: string, timeoutMs = 30_000) {
  return createActorApp({
    definition,
    env: { API_KEY_ENABLED: 'true', API_KEY: OWNER_KEY },
    logger: silentLogger,
    store: new MemoryStore(),
    routers: [workflowProxyRouter({ baseUrl, timeoutMs })],
  });
}

const auth = { 'X-API-Key': OWNER_KEY };

beforeAll(async () => {
  upstream = await listenOnLoopback((req, res) => void upstreamHandler(req, res).catch(() => res.destroy()));
  actor = await serveOnLoopback(actorWith(`${upstream.url}/base`, 400));
  deadActor = await serveOnLoopback(actorWith(`http://127.0.0.1:${await deadPort()}/`));
});

afterAll(async () => {
  for (const res of held) res.destroy();
  await Promise.all([actor?.close(), deadActor?.close()]);
  await upstream?.close();
});

/** Sends a method `fetch` refuses to send (TRACE) over node:http; the status and headers. */
function sendRaw(target: string, method: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: IncomingMessage['headers'] }>((resolve, reject) => {
    const url = new URL(target);
    httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method, headers }, (res) => {
      res.resume().on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    })
      .on('error', reject)
      .end();
  });
}

describe('workflow proxy on loopback', () => {
  it('answers TRACE and WebDAV methods 405 with the Allow of the methods it forwards, before any key (#40)', async () => {
    for (const method of ['TRACE', 'PROPFIND']) {
      for (const headers of [auth, {}]) {
        const { status, headers: answer } = await sendRaw(`${actor.url}/workflow/echo`, method, headers);
        expect(status, method).toBe(405);
        expect(answer.allow, method).toBe('GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS');
      }
    }
  });

  it('forwards every method with path and query, prefix stripped', async () => {
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      const hasBody = method !== 'GET' && method !== 'OPTIONS';
      const response = await fetch(`${actor.url}/workflow/echo?a=1&b=%2F`, {
        method,
        headers: auth,
        ...(hasBody ? { body: `body of ${method}` } : {}),
      });
      expect(response.status, method).toBe(200);
      const seen = await response.json();
      expect(seen, method).toMatchObject({
        method,
        path: '/base/echo',
        query: '?a=1&b=%2F',
        body: hasBody ? `body of ${method}` : '',
      });
    }
    expect(await (await fetch(`${actor.url}/workflow?a=1`, { headers: auth })).json()).toMatchObject({
      path: '/base/',
      query: '?a=1',
    });
    const outside = await fetch(`${actor.url}/workflowx/echo`, { headers: auth });
    expect(outside.status).toBe(404);
    expect((await outside.json()).code).toBe('not_found');
    const head = await fetch(`${actor.url}/workflow/echo`, { method: 'HEAD', headers: auth });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('drops hop-by-hop headers and the actor credentials, sets X-Forwarded-*, keeps Authorization', async () => {
    const { status, body, headers } = await new Promise<{
      status: number;
      body: string;
      headers: IncomingMessage['headers'];
    }>((resolve, reject) => {
      const url = new URL(`${actor.url}/workflow/echo`);
      const outgoing = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'GET',
          headers: {
            ...auth,
            'X-Mesh-Key': 'group-key',
            Authorization: 'Bearer for-n8n',
            Connection: 'keep-alive, X-Client-Hop',
            'X-Client-Hop': 'per-connection',
            TE: 'trailers',
            'Proxy-Authorization': 'Basic eDp5',
            'X-Forwarded-For': '203.0.113.7',
            'X-Forwarded-Host': 'spoofed.example',
          },
        },
        (res) => {
          let text = '';
          res
            .setEncoding('utf8')
            .on('data', (chunk: string) => (text += chunk))
            .on('end', () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
        },
      );
      outgoing.on('error', reject).end();
    });
    expect(status).toBe(200);
    const seen = JSON.parse(body).headers as Record<string, string>;
    for (const name of ['x-api-key', 'x-mesh-key', 'x-client-hop', 'te', 'proxy-authorization'])
      expect(seen[name], name).toBeUndefined();
    expect(seen.authorization).toBe('Bearer for-n8n');
    expect(seen['x-forwarded-for']).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
    expect(seen['x-forwarded-host']).toBe(new URL(actor.url).host);
    expect(seen['x-forwarded-proto']).toBe('http');
    expect(seen['x-forwarded-prefix']).toBe('/workflow');
    expect(seen['x-request-id']).toBe(headers['x-request-id']);
    expect(seen.host).toBe(new URL(upstream.url).host);
    expect(headers['x-upstream-hop']).toBeUndefined();
    expect(headers['keep-alive']).not.toBe('timeout=1');
  });

  it('honours Expect: 100-continue (curl sends it for uploads) and does not forward it', async () => {
    const payload = Buffer.from('upload after 100 Continue');
    const answer = await new Promise<{ status: number; continued: boolean; body: string }>((resolve, reject) => {
      let continued = false;
      const request = httpRequest(
        `${actor.url}/workflow/echo`,
        {
          method: 'PUT',
          headers: { ...auth, Expect: '100-continue', 'Content-Type': 'text/plain', 'Content-Length': payload.length },
        },
        (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (body += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, continued, body }));
        },
      );
      request.on('continue', () => {
        continued = true;
        request.end(payload);
      });
      request.on('error', reject);
    });
    expect(answer.status, answer.body).toBe(200);
    expect(answer.continued).toBe(true);
    const echoed = JSON.parse(answer.body) as { method: string; headers: Record<string, string>; body: string };
    expect(echoed).toMatchObject({ method: 'PUT', body: payload.toString() });
    expect(echoed.headers.expect).toBeUndefined();
  });

  it(`streams a ${LARGE / MiB} MiB request body upstream without buffering it`, async () => {
    upstreamSawFirstChunk = signal();
    const chunks = LARGE / CHUNK;
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        // After the first chunk, wait until the upstream has it: a buffering proxy never delivers it, and this test times out.
        if (sent === 1)
          await within(
            upstreamSawFirstChunk.promise,
            10_000,
            'upstream receiving the first chunk while the client still sends',
          );
        if (sent === chunks) return controller.close();
        controller.enqueue(patternChunk(sent));
        sent += 1;
      },
    });
    const response = await fetch(`${actor.url}/workflow/stream-up`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/octet-stream' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ bytes: LARGE, sha256: sha256Of(chunks), transferEncoding: 'chunked' });
  });

  it(`streams a ${LARGE / MiB} MiB response body back without buffering it`, async () => {
    clientSawFirstChunk = signal();
    const chunks = LARGE / CHUNK;
    const response = await within(
      fetch(`${actor.url}/workflow/stream-down?chunks=${chunks}`, { headers: auth }),
      10_000,
      'response headers while the upstream still writes',
    );
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const hash = createHash('sha256');
    let bytes = 0;
    // The upstream holds the rest until this side has the first bytes: a buffering proxy never sends them.
    const first = await within(reader.read(), 10_000, 'first response bytes while the upstream still writes');
    hash.update(first.value!);
    bytes += first.value!.length;
    clientSawFirstChunk.resolve();
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      hash.update(next.value);
      bytes += next.value.length;
    }
    expect(bytes).toBe(LARGE);
    expect(hash.digest('hex')).toBe(sha256Of(chunks));
  });

  it('stops the upstream when the client goes away mid-body', async () => {
    clientSawFirstChunk = signal();
    upstreamResponseClosed = signal();
    const client = new AbortController();
    const response = await within(
      fetch(`${actor.url}/workflow/stream-down?chunks=4096`, { headers: auth, signal: client.signal }),
      10_000,
      'response headers',
    );
    await response.body!.getReader().read();
    client.abort();
    clientSawFirstChunk.resolve();
    await within(upstreamResponseClosed.promise, 10_000, 'upstream response closed after the client left');
  });

  it('passes redirects, statuses and every Set-Cookie through untouched, and decodes compressed bodies once', async () => {
    const redirect = await fetch(`${actor.url}/workflow/redirect`, { headers: auth, redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe('/workflow/elsewhere?from=redirect');
    const cookies = await fetch(`${actor.url}/workflow/cookies`, { headers: auth });
    expect(cookies.headers.getSetCookie()).toEqual(['a=1; Path=/; HttpOnly', 'b=2; Path=/']);
    const teapot = await fetch(`${actor.url}/workflow/teapot`, { headers: auth });
    expect(teapot.status).toBe(418);
    expect(await teapot.text()).toBe('short and stout');
    const gzip = await fetch(`${actor.url}/workflow/gzip`, { headers: auth });
    expect(gzip.headers.get('content-encoding')).toBeNull();
    expect(await gzip.text()).toBe('decoded once');
  });

  it('answers 504 upstream_timeout when the upstream sends no response in time', async () => {
    const response = await fetch(`${actor.url}/workflow/slow`, { headers: auth });
    expect(response.status).toBe(504);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(await response.json()).toMatchObject({ code: 'upstream_timeout', status: 504 });
  });

  it('answers 502 upstream_unavailable when the upstream is down', async () => {
    const response = await fetch(`${deadActor.url}/workflow/anything`, { method: 'POST', headers: auth, body: 'x' });
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ code: 'upstream_unavailable', status: 502 });
  });

  it('keeps the proxy behind the API key when it is enabled', async () => {
    const response = await fetch(`${actor.url}/workflow/echo`);
    expect(response.status).toBe(401);
  });
});

describe('workflowProxyRouter setup', () => {
  it('is documented with the upload cap the Node server puts on a whole request', () => {
    const docs = readFileSync(new URL('../../docs/surfaces.md', import.meta.url), 'utf8');
    const section = docs.slice(docs.indexOf('## Workflow proxy'), docs.indexOf('## OAuth'));
    expect(section).toContain(`within ${NODE_SERVER_TIMEOUTS.requestTimeoutMs / 1000} s`);
    expect(section).toContain('408');
    expect(section).toContain('`Expect`');
  });

  it('refuses to start without a usable WORKFLOW_BASE_URL', () => {
    expect(() => workflowProxyRouter({ baseUrl: undefined })).toThrow(/WORKFLOW_BASE_URL is unset/);
    expect(() => workflowProxyRouter({ baseUrl: ' ' })).toThrow(/unset/);
    expect(() => workflowProxyRouter({ baseUrl: 'n8n:5678' })).toThrow(/http or https/);
    expect(() => workflowProxyRouter({ baseUrl: 'not a url' })).toThrow(/not a URL/);
    expect(() => workflowProxyRouter({ baseUrl: 'http://user:pw@n8n:5678' })).toThrow(/credentials/);
    expect(() => workflowProxyRouter({ baseUrl: 'http://n8n:5678/?x=1' })).toThrow(/query/);
    expect(() => workflowProxyRouter({ baseUrl: 'http://n8n:5678', timeoutMs: 0 })).toThrow(/timeoutMs/);
  });

  it('refuses to mount unless integration_type is n8n', () => {
    expect(() =>
      createActorApp({
        definition: testActorDefinition,
        env: {},
        logger: silentLogger,
        store: new MemoryStore(),
        routers: [workflowProxyRouter({ baseUrl: 'http://n8n:5678' })],
      }),
    ).toThrow(/integrationType is "none"/);
  });

  it('is absent when not mounted', async () => {
    const app = createActorApp({
      definition: testActorDefinition,
      env: {},
      logger: silentLogger,
      store: new MemoryStore(),
    });
    expect((await app.request('/workflow/echo')).status).toBe(404);
  });
});
