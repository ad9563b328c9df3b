import { describe, expect, it } from 'vitest';
import { ActorError } from '../../core/actor-error.js';
import { MemoryStore } from '../../store/memory-store.js';
import { createTestActor } from '../../testing/create-test-actor.js';

const valid = { user_identifier: 'u-1', session_id: 's-1', message: 'hello there' };
const post = (body: unknown, headers: Record<string, string> = {}) =>
  new Request('http://actor/agent/invoke', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

async function problem(response: Response) {
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  const body = await response.json();
  expect(body.status).toBe(response.status);
  expect(body.request_id).toBe(response.headers.get('x-request-id'));
  return body;
}

describe('POST /agent/invoke', () => {
  it('answers with the offline model and the documented reply shape', async () => {
    const app = await createTestActor();
    const response = await app.request(post(valid));
    expect(response.status).toBe(200);
    const reply = await response.json();
    expect(reply).toMatchObject({
      session_id: 's-1',
      status: 'completed',
      finish_reason: 'stop',
      model: 'offline',
      tool_calls: [],
    });
    expect(reply.message.role).toBe('assistant');
    expect(reply.message.content).toContain('offline model');
    expect(reply.message.content).toContain('hello there');
    expect(reply.usage.total_tokens).toBe(reply.usage.input_tokens + reply.usage.output_tokens);
    expect(reply.id).toMatch(/^inv_/);
    expect(Date.parse(reply.created_at)).not.toBeNaN();
  });

  it('counts each successful invoke once, per tenant', async () => {
    const app = await createTestActor();
    await app.request(post(valid, { 'X-Tenant-Id': 'acme' }));
    await app.request(post({ ...valid, session_id: 's-2', metadata: { tenant_id: 'globex' } }));
    await app.request(post({ ...valid, user_identifier: 'u-2' }, { 'X-Tenant-Id': 'acme' }));
    const all = await (await app.request('/stats')).json();
    expect(all).toMatchObject({ scope: 'instance', invocations: 3, errors: 0, tenants: 2, users: 2, sessions: 2 });
    const acme = await (await app.request('/stats/acme')).json();
    expect(acme).toMatchObject({ scope: 'tenant', tenant_id: 'acme', invocations: 2, users: 2, sessions: 1 });
  });

  it('rejects malformed JSON with 400 invalid_json', async () => {
    const app = await createTestActor();
    const body = await problem(await app.request(post('{"user_identifier": ')));
    expect(body).toMatchObject({ status: 400, code: 'invalid_json' });
  });

  it('rejects an empty body with 400', async () => {
    const app = await createTestActor();
    expect((await problem(await app.request(post('')))).code).toBe('invalid_json');
  });

  it('rejects another media type with 415', async () => {
    const app = await createTestActor();
    const response = await app.request(
      new Request('http://actor/agent/invoke', {
        method: 'POST',
        headers: { 'Content-Type': 'text/plain' },
        body: JSON.stringify(valid),
      }),
    );
    expect((await problem(response)).code).toBe('unsupported_media_type');
    expect(response.status).toBe(415);
  });

  it('rejects a body over the limit with 413', async () => {
    const app = await createTestActor({ env: { BODY_LIMIT_BYTES: '1000' } });
    const response = await app.request(post({ ...valid, message: 'x'.repeat(2000) }));
    expect(response.status).toBe(413);
    expect((await problem(response)).code).toBe('payload_too_large');
  });

  it('names every bad field with a JSON pointer in a 422', async () => {
    const app = await createTestActor();
    const response = await app.request(
      post({
        session_id: 'bad id!',
        message: '',
        role: 'admin',
        extra: 1,
        attachments: [{ name: 'a', mime_type: 'image/png' }],
      }),
    );
    expect(response.status).toBe(422);
    const body = await problem(response);
    expect(body.code).toBe('validation_failed');
    const pointers = body.errors.map((error: { pointer: string }) => error.pointer).sort();
    expect(pointers).toEqual(['/attachments/0', '/extra', '/message', '/role', '/session_id', '/user_identifier']);
    expect(body.errors.find((e: { pointer: string }) => e.pointer === '/user_identifier').detail).toBe('is required');
    expect(body.errors.find((e: { pointer: string }) => e.pointer === '/extra').detail).toBe('is not a known field');
  });

  it('rejects oversized metadata and too many attachments', async () => {
    const app = await createTestActor();
    const attachment = { name: 'a.txt', mime_type: 'text/plain', data: 'aGk=' };
    const body = await problem(
      await app.request(
        post({ ...valid, metadata: { blob: 'x'.repeat(17_000) }, attachments: Array(11).fill(attachment) }),
      ),
    );
    expect(body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['/attachments', '/metadata']);
  });

  it('rejects a JSON array or string body with 422, not a crash', async () => {
    const app = await createTestActor();
    for (const body of [[], 'text', 42, null]) {
      const response = await app.request(post(JSON.stringify(body)));
      expect(response.status).toBe(422);
    }
  });

  it('rejects a malformed tenant header with 400 and a malformed metadata tenant with 422', async () => {
    const app = await createTestActor();
    expect((await app.request(post(valid, { 'X-Tenant-Id': 'a b' }))).status).toBe(400);
    const body = await problem(await app.request(post({ ...valid, metadata: { tenant_id: 42 } })));
    expect(body.errors).toEqual([{ pointer: '/metadata/tenant_id', detail: expect.any(String) }]);
  });

  it('turns a model failure into its problem and counts it as an error', async () => {
    const app = await createTestActor({
      chatHandler: async () => {
        throw new ActorError(504, 'model_timeout', 'The model did not answer in time');
      },
    });
    const response = await app.request(post(valid));
    expect(response.status).toBe(504);
    expect((await problem(response)).code).toBe('model_timeout');
    expect(await (await app.request('/stats')).json()).toMatchObject({ invocations: 1, errors: 1 });
  });

  it('answers 500 without a stack trace when the handler crashes', async () => {
    const app = await createTestActor({
      chatHandler: async () => {
        throw new TypeError('secret internals at line 42');
      },
    });
    const response = await app.request(post(valid));
    expect(response.status).toBe(500);
    const text = await response.clone().text();
    expect(text).not.toContain('secret internals');
    expect(text).not.toContain('at ');
    expect((await problem(response)).code).toBe('internal_error');
  });

  it('refuses new invokes with 503 draining during shutdown', async () => {
    const app = await createTestActor();
    await app.actor.shutdown({ graceMs: 10 });
    const response = await app.request(post(valid));
    expect(response.status).toBe(503);
    expect((await problem(response)).code).toBe('draining');
  });

  it('still answers and keeps the count while the database is down', async () => {
    const store = new MemoryStore();
    const app = await createTestActor({ store });
    store.failure = new Error('database is down');
    const response = await app.request(post(valid));
    expect(response.status).toBe(200);
    // The history could not be read or written either, and the reply says so.
    expect((await response.json()).metadata).toEqual({
      stats_deferred: true,
      history_loaded: false,
      history_saved: false,
    });
    store.failure = null;
    await app.actor.context.turns.flush();
    expect(await (await app.request('/stats')).json()).toMatchObject({ invocations: 1 });
  });

  it('stores the turn with its stats record, in one write', async () => {
    const calls: string[] = [];
    class SpyStore extends MemoryStore {
      override async appendMessages(...args: Parameters<MemoryStore['appendMessages']>): Promise<void> {
        calls.push('appendMessages');
        await super.appendMessages(...args);
      }
      override async saveTurns(...args: Parameters<MemoryStore['saveTurns']>): Promise<void> {
        calls.push(`saveTurns:${args[0].map((record) => record.history?.map((m) => m.role).join('+')).join(',')}`);
        await super.saveTurns(...args);
      }
    }
    const store = new SpyStore();
    const app = await createTestActor({ store });
    const response = await app.request(post(valid));
    expect(response.status).toBe(200);
    expect((await response.json()).metadata).toBeUndefined();
    expect(calls).toEqual(['saveTurns:user+assistant']);
    expect((await store.loadHistory('default', 's-1', 10)).map((m) => m.content)[0]).toBe('hello there');
  });

  it('says history_saved: false when the database refuses only the messages, and still counts the invoke', async () => {
    // As PostgreSQL refuses text with a NUL: the turn's write fails, the record alone goes in.
    class NoHistoryStore extends MemoryStore {
      override async saveTurns(...args: Parameters<MemoryStore['saveTurns']>): Promise<void> {
        if (args[0].some((record) => record.history !== undefined))
          throw new Error('invalid byte sequence for encoding "UTF8": 0x00');
        await super.saveTurns(...args);
      }
    }
    const store = new NoHistoryStore();
    const app = await createTestActor({ store });
    const response = await app.request(post(valid));
    expect(response.status).toBe(200);
    expect((await response.json()).metadata).toEqual({ history_saved: false });
    expect(await (await app.request('/stats')).json()).toMatchObject({ invocations: 1 });
    expect((await (await app.request('/health')).json()).status).toBe('ok');
    expect(await store.loadHistory('default', 's-1', 10)).toEqual([]);
  });
});

describe('SSE events survive a reader that splits lines as Python does (#40)', () => {
  /** Python's `str.splitlines` line breaks, which Schemathesis's SSE reader splits on. */
  const PYTHON_LINE_BREAKS = /\r\n|[\n\r\u000b\u000c\u001c-\u001e\u0085\u2028\u2029]/;
  /** The `data:` of each event, as such a reader sees them. */
  const dataLines = (text: string) =>
    text
      .split(PYTHON_LINE_BREAKS)
      .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
      .map((line) => JSON.parse(line.slice('data: '.length)) as { type: string; delta?: string });

  it('writes NEL, LINE SEPARATOR and PARAGRAPH SEPARATOR as escapes, live and when a run is streamed again', async () => {
    const app = await createTestActor();
    const said = 'one\u0085two\u2028three\u2029four';
    const live = await app.request(post({ ...valid, message: said, stream: true }));
    const events = dataLines(await live.text());
    const text = events.map((event) => event.delta ?? '').join('');
    expect(text).toContain(said);
    const background = await app.request(post({ ...valid, session_id: 's-2', message: said, background: true }));
    const run = (await background.json()) as { id: string };
    const replay = await app.request(`/agent/runs/${run.id}/stream`);
    expect(
      dataLines(await replay.text())
        .map((event) => event.delta ?? '')
        .join(''),
    ).toContain(said);
  });
});
