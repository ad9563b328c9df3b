import { Agent, request as httpRequest } from 'node:http';
import { expect, it } from 'vitest';
import { exchange } from '../reliability/support/raw-http.js';

/** The media type of every error (RFC 9457). */
const PROBLEM = 'application/problem+json';
const ISO_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
/** A Prometheus text exposition sample line: name, optional labels, value, optional timestamp. */
const METRIC_SAMPLE =
  /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? (-?[0-9.]+([eE][+-]?\d+)?|[Nn]a[Nn]|[+-]?Inf)( -?\d+)?$/;

type Json = Record<string, unknown>;

/** A valid chat request; `overrides` replace or add keys. */
export function chatRequest(overrides: Json = {}): Json {
  return {
    user_identifier: 'contract-user-7f3a',
    session_id: 'contract-session:1',
    message: 'Hello from the contract suite',
    ...overrides,
  };
}

/** Asserts an RFC 9457 problem response with `status` and `code`, and returns its body. */
export async function expectProblem(response: Response, status: number, code: string): Promise<Json> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  expect(response.headers.get('content-type')).toContain(PROBLEM);
  const body = JSON.parse(text) as Json;
  expect(body).toMatchObject({
    status,
    code,
    type: expect.any(String),
    title: expect.any(String),
    request_id: expect.any(String),
  });
  expect(body.request_id).toBe(response.headers.get('x-request-id'));
  expect(text).not.toMatch(/\bat .+:\d+:\d+/); // no stack trace
  return body;
}

async function expectJson(response: Response, mediaType = /^application\/json\b/): Promise<Json> {
  const text = await response.text();
  expect(response.status, text).toBe(200);
  expect(response.headers.get('content-type')).toMatch(mediaType);
  return JSON.parse(text) as Json;
}

const invoke = (baseUrl: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${baseUrl}/agent/invoke`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body,
  });

const statsShape = {
  since: expect.stringMatching(ISO_DATE),
  invocations: expect.any(Number),
  errors: expect.any(Number),
  sessions: expect.any(Number),
  users: expect.any(Number),
  tenants: expect.any(Number),
  input_tokens: expect.any(Number),
  output_tokens: expect.any(Number),
  tool_calls: expect.any(Number),
  latency_ms: { total: expect.any(Number), avg: expect.any(Number), max: expect.any(Number) },
};

/**
 * The runtime contract of DESIGN §3 for every always-present route, as vitest tests against
 * a real listening server. Call it inside a `describe` whose set-up starts the server.
 * @param baseUrl returns the server's base URL (known once the set-up has run)
 */
export function actorContractSuite(baseUrl: () => string): void {
  it('GET /health: 200, the documented body, no-store, X-Request-Id', async () => {
    const response = await fetch(`${baseUrl()}/health`);
    const body = await expectJson(response);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(body).toMatchObject({
      status: expect.stringMatching(/^(ok|degraded)$/),
      version: expect.any(String),
      instance_id: expect.any(String),
      uptime_s: expect.any(Number),
      checks: { database: { status: expect.stringMatching(/^(pass|warn|fail)$/), output: expect.any(String) } },
    });
  });

  it('echoes a sane X-Request-Id and replaces an unusable one', async () => {
    const sane = await fetch(`${baseUrl()}/health`, { headers: { 'X-Request-Id': 'contract-req-42' } });
    expect(sane.headers.get('x-request-id')).toBe('contract-req-42');
    const insane = await fetch(`${baseUrl()}/health`, { headers: { 'X-Request-Id': `bad id ${'x'.repeat(300)}` } });
    const replaced = insane.headers.get('x-request-id');
    expect(replaced).toBeTruthy();
    expect(replaced).not.toContain('bad id');
  });

  it('GET /ready: 200 {status: ready, checks} once started, no-store', async () => {
    const response = await fetch(`${baseUrl()}/ready`);
    const body = await expectJson(response);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(body).toEqual({ status: 'ready', checks: expect.any(Object) });
  });

  it('GET /metrics: Prometheus text 0.0.4 whose every sample line parses', async () => {
    const response = await fetch(`${baseUrl()}/metrics`);
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(text).toMatch(/^# HELP /m);
    expect(text).toMatch(/^# TYPE \S+ (counter|gauge|histogram|summary|untyped)$/m);
    const samples = text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
    expect(samples.length).toBeGreaterThan(0);
    for (const line of samples) expect(line).toMatch(METRIC_SAMPLE);
  });

  it('GET /stats: the instance counters', async () => {
    const body = await expectJson(await fetch(`${baseUrl()}/stats`));
    expect(body).toMatchObject({ scope: 'instance', instance_id: expect.any(String), ...statsShape });
    expect(body.last_invoked_at === null || ISO_DATE.test(String(body.last_invoked_at))).toBe(true);
  });

  it('GET /stats/{tenant_id}: zeros for an unseen tenant, 422 problem for a malformed id', async () => {
    const body = await expectJson(await fetch(`${baseUrl()}/stats/never-seen-tenant`));
    expect(body).toMatchObject({
      scope: 'tenant',
      tenant_id: 'never-seen-tenant',
      ...statsShape,
      invocations: 0,
      errors: 0,
      last_invoked_at: null,
    });
    const problem = await expectProblem(await fetch(`${baseUrl()}/stats/${'t'.repeat(300)}`), 422, 'validation_failed');
    expect(problem.errors).toEqual([
      expect.objectContaining({ pointer: expect.any(String), detail: expect.any(String) }),
    ]);
    await expectProblem(await fetch(`${baseUrl()}/stats/bad%20tenant!`), 422, 'validation_failed');
  });

  it('GET /settings/schema: JSON Schema 2020-12 with x-platform-* annotations, secrets writeOnly', async () => {
    const schema = await expectJson(await fetch(`${baseUrl()}/settings/schema`), /^application\/(schema\+)?json\b/);
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.type).toBe('object');
    const properties = Object.values(schema.properties as Record<string, Json>);
    expect(properties.length).toBeGreaterThan(0);
    for (const property of properties) expect(property['x-platform-section']).toEqual(expect.any(String));
    for (const property of properties.filter((candidate) => candidate['x-platform-widget'] === 'password')) {
      expect(property.writeOnly).toBe(true);
      expect(property).not.toHaveProperty('default');
    }
  });

  it('GET /api/actor/metadata: the marketplace card', async () => {
    const card = await expectJson(await fetch(`${baseUrl()}/api/actor/metadata`));
    expect(card).toMatchObject({
      name: expect.any(String),
      slug: expect.stringMatching(/^[a-z0-9]+(-[a-z0-9]+)*$/),
      version: expect.any(String),
      description: expect.any(String),
      domain: expect.any(String),
      tags: expect.any(Array),
      capabilities: {
        streaming: expect.any(Boolean),
        tools: expect.any(Boolean),
        panel: expect.any(Boolean),
        fleet_mesh: expect.any(Boolean),
        workflow: expect.any(Boolean),
      },
    });
    expect(card).toHaveProperty('icon');
  });

  it('GET /api/actor/platform-config: the baked JSON with an ETag; If-None-Match gets 304', async () => {
    const response = await fetch(`${baseUrl()}/api/actor/platform-config`);
    const config = await expectJson(response);
    expect(config).toHaveProperty('schema_version');
    const etag = response.headers.get('etag');
    expect(etag).toMatch(/^(W\/)?"[^"]+"$/);
    const cached = await fetch(`${baseUrl()}/api/actor/platform-config`, { headers: { 'If-None-Match': etag ?? '' } });
    expect(cached.status).toBe(304);
    expect(cached.headers.get('etag')).toBe(etag);
    expect(await cached.text()).toBe('');
    const stale = await fetch(`${baseUrl()}/api/actor/platform-config`, {
      headers: { 'If-None-Match': '"not-the-etag"' },
    });
    expect(stale.status).toBe(200);
  });

  it('GET /api/actor/configuration-schema is gone: 404 problem', async () => {
    await expectProblem(await fetch(`${baseUrl()}/api/actor/configuration-schema`), 404, 'not_found');
  });

  it('unknown route: 404 problem; wrong method: 405 problem with Allow', async () => {
    await expectProblem(await fetch(`${baseUrl()}/no/such/route`), 404, 'not_found');
    const wrongMethod = await fetch(`${baseUrl()}/health`, { method: 'DELETE' });
    expect(wrongMethod.headers.get('allow')).toContain('GET');
    await expectProblem(wrongMethod, 405, 'method_not_allowed');
    const getInvoke = await fetch(`${baseUrl()}/agent/invoke`);
    expect(getInvoke.headers.get('allow')).toContain('POST');
    await expectProblem(getInvoke, 405, 'method_not_allowed');
  });

  it('POST /agent/invoke: 200 chat reply, counted in /stats/{tenant_id}, no ids in /metrics', async () => {
    const tenant = `contract-tenant-${Date.now()}`;
    const response = await invoke(baseUrl(), JSON.stringify(chatRequest()), { 'X-Tenant-Id': tenant });
    const reply = await expectJson(response);
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(reply).toMatchObject({
      id: expect.any(String),
      session_id: 'contract-session:1',
      status: 'completed',
      message: { id: expect.any(String), role: 'assistant', content: expect.any(String) },
      tool_calls: expect.any(Array),
      finish_reason: expect.stringMatching(/^(stop|length|tool_calls|content_filter|error)$/),
      usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number), total_tokens: expect.any(Number) },
      model: expect.any(String),
      created_at: expect.stringMatching(ISO_DATE),
      latency_ms: expect.any(Number),
    });
    const usage = reply.usage as { input_tokens: number; output_tokens: number; total_tokens: number };
    expect(usage.total_tokens).toBe(usage.input_tokens + usage.output_tokens);
    const stats = await expectJson(await fetch(`${baseUrl()}/stats/${tenant}`));
    expect(stats).toMatchObject({
      scope: 'tenant',
      tenant_id: tenant,
      invocations: 1,
      errors: 0,
      sessions: 1,
      users: 1,
    });
    const metrics = await (await fetch(`${baseUrl()}/metrics`)).text();
    expect(metrics).not.toContain('contract-user-7f3a');
    expect(metrics).not.toContain(tenant);
  });

  it("POST /agent/invoke: the AI SDK's chat body (useChat) gets the UI message stream", async () => {
    const body = {
      id: 'contract-chat-1',
      trigger: 'submit-message',
      messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Hello from useChat' }] }],
    };
    const response = await invoke(baseUrl(), JSON.stringify(body));
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    expect(text).toContain('"type":"data-session","data":{"session_id":"contract-chat-1"');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });

  it('GET /docs: Swagger UI (swagger-ui-dist is installed here), its files served by the actor under a nonce CSP', async () => {
    const page = await fetch(`${baseUrl()}/docs`);
    const nonce = /script-src 'nonce-([^']+)'/.exec(page.headers.get('content-security-policy') ?? '')?.[1];
    expect(await page.text()).toContain(`<script src="docs?asset=swagger-ui-bundle.js" nonce="${nonce}">`);
    const script = await fetch(`${baseUrl()}/docs?asset=swagger-ui-bundle.js`);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await script.text()).toContain('SwaggerUIBundle');
    await expectProblem(await fetch(`${baseUrl()}/docs?asset=index.html`), 404, 'not_found');
  });

  it('POST /agent/invoke: 400 invalid_json for malformed JSON', async () => {
    await expectProblem(await invoke(baseUrl(), '{"user_identifier": "u", '), 400, 'invalid_json');
  });

  it('POST /agent/invoke: 415 unsupported_media_type for a non-JSON body', async () => {
    const response = await fetch(`${baseUrl()}/agent/invoke`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: 'hello',
    });
    await expectProblem(response, 415, 'unsupported_media_type');
  });

  it('POST /agent/invoke: 422 validation_failed with one entry per bad field', async () => {
    const bad = chatRequest({ user_identifier: '', session_id: 'has spaces!', role: 'wizard', surprise: true });
    const problem = await expectProblem(await invoke(baseUrl(), JSON.stringify(bad)), 422, 'validation_failed');
    const pointers = (problem.errors as { pointer: string; detail: string }[]).map((entry) => entry.pointer);
    expect(pointers).toEqual(expect.arrayContaining(['/user_identifier', '/session_id', '/role', '/surprise']));
    expect(new Set(pointers).size).toBe(pointers.length);
    const missing = await expectProblem(await invoke(baseUrl(), '{}'), 422, 'validation_failed');
    const missingPointers = (missing.errors as { pointer: string }[]).map((entry) => entry.pointer);
    expect(missingPointers).toEqual(expect.arrayContaining(['/user_identifier', '/session_id', '/message']));
  });

  it('POST /agent/invoke: 413 payload_too_large over the 1 MiB default limit', async () => {
    const huge = JSON.stringify(chatRequest({ message: 'x'.repeat(1024 * 1024 + 1) }));
    await expectProblem(await invoke(baseUrl(), huge), 413, 'payload_too_large');
  });

  it('POST /agent/invoke: after a 413 the same keep-alive client goes on (Connection: close, or a drained body)', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    // A server that answers 413 and closes while the 3 MiB body is still being written may cut
    // the upload short (EPIPE/ECONNRESET on the writing side, before the client reads the 413; Bun
    // does this, on a loaded machine every time): allowed, as long as the next request on the same
    // client works. The 413 itself is asserted by the test above, with a body just over the limit.
    const send = (method: string, path: string, body?: Buffer) =>
      new Promise<number | 'closed while uploading'>((resolve, reject) => {
        const headers = body === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': body.length };
        const request = httpRequest(`${baseUrl()}${path}`, { method, agent, headers }, (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
        });
        request.on('error', (error: NodeJS.ErrnoException) => {
          if (body !== undefined && (error.code === 'EPIPE' || error.code === 'ECONNRESET'))
            resolve('closed while uploading');
          else reject(error);
        });
        request.end(body);
      });
    try {
      const refused: (number | string)[] = [];
      for (let round = 0; round < 3; round += 1) {
        refused.push(await send('POST', '/agent/invoke', Buffer.alloc(3 * 1024 * 1024, 0x20)));
        expect(await send('GET', '/health')).toBe(200);
      }
      expect(
        refused.every((outcome) => outcome === 413 || outcome === 'closed while uploading'),
        String(refused),
      ).toBe(true);
    } finally {
      agent.destroy();
    }
  });

  it('HEAD /health: 200 with the GET headers and no body', async () => {
    const response = await fetch(`${baseUrl()}/health`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json\b/);
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(await response.text()).toBe('');
  });

  it('routes on the request-line path only: a Host with / ? # @ \\ or a space gets a 400 problem', async () => {
    const hostile = [
      'a\xc3/stats?',
      'evil/stats',
      'localhost/stats?',
      'a?b',
      'a#b',
      'user@localhost',
      'a b',
      'a\\stats',
      'localhost:80/stats#',
    ];
    for (const host of hostile) {
      const { response, raw } = await exchange(baseUrl(), [
        `GET /health HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
      ]);
      expect(response?.status, `Host ${JSON.stringify(host)}: ${raw}`).toBe(400);
      expect(response?.header('content-type'), `Host ${JSON.stringify(host)}: ${raw}`).toContain(PROBLEM);
      expect(JSON.parse(response!.body)).toMatchObject({
        status: 400,
        code: 'invalid_host',
        request_id: response?.header('x-request-id'),
      });
    }
    for (const host of ['localhost', '127.0.0.1:8080', '[::1]:8080', 'actor.localhost:1234', '']) {
      const { response, raw } = await exchange(baseUrl(), [
        `GET /health HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
      ]);
      expect(response?.status, `Host ${JSON.stringify(host)}: ${raw}`).toBe(200);
      expect(JSON.parse(response!.body)).toHaveProperty('instance_id');
    }
  });

  it('a Host no URL parser accepts (port over 65535, a malformed address) gets 400 invalid_host on every route, never a 500', async () => {
    for (const host of ['127.0.0.1:99999', 'localhost:65536', '[::1]:99999', '1.2.3.256', '[:::]']) {
      for (const path of ['/health', '/stats', '/nowhere', '/agent/invoke']) {
        const { response, raw } = await exchange(baseUrl(), [
          `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
        ]);
        expect(response?.status, `Host ${JSON.stringify(host)} ${path}: ${raw}`).toBe(400);
        expect(JSON.parse(response!.body), `Host ${JSON.stringify(host)} ${path}`).toMatchObject({
          status: 400,
          code: 'invalid_host',
          request_id: response?.header('x-request-id'),
        });
      }
    }
    for (const path of ['/nowhere', '/stats']) {
      const { response, raw } = await exchange(baseUrl(), [
        `GET ${path} HTTP/1.1\r\nHost: \r\nConnection: close\r\n\r\n`,
      ]);
      expect(response?.status, `empty Host ${path}: ${raw}`).toBe(path === '/stats' ? 200 : 404);
    }
  });

  it('without an API key, a Host that is not a loopback name gets 421 host_not_allowed (DNS rebinding)', async () => {
    for (const host of ['actor.example.com', 'my_actor.internal:1234', '192.0.2.7:8080']) {
      const { response, raw } = await exchange(baseUrl(), [
        `GET /stats HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
      ]);
      expect(response?.status, `Host ${JSON.stringify(host)}: ${raw}`).toBe(421);
      expect(JSON.parse(response!.body)).toMatchObject({
        status: 421,
        code: 'host_not_allowed',
        request_id: response?.header('x-request-id'),
      });
    }
  });
}
