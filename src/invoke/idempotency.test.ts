import { describe, expect, it } from 'vitest';
import { deferred } from '../../test/agent/deferred.js';
import { readUiStream } from '../../test/agent/ui-stream-reader.js';
import type { ChatHandler } from './chat-handler.js';
import { offlineChatHandler } from '../agent/agent-chat-handler.js';
import { MemoryStore } from '../store/memory-store.js';
import { createTestActor } from '../testing/create-test-actor.js';
import * as v from 'valibot';
import { IdempotencyKey, requestFingerprint } from './idempotency.js';

const body = { user_identifier: 'u-1', session_id: 's-1', message: 'hello there' };
const post = (payload: Record<string, unknown>, headers: Record<string, string> = {}) =>
  new Request('http://actor/agent/invoke', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(payload),
  });

function countingHandler(inner: ChatHandler = offlineChatHandler) {
  const calls = { count: 0 };
  const handler: ChatHandler = (input) => {
    calls.count += 1;
    return inner(input);
  };
  return { handler, calls };
}

describe('Idempotency-Key on POST /agent/invoke', () => {
  it('replays the stored reply of a completed invoke without running or counting it again', async () => {
    const { handler, calls } = countingHandler();
    const app = await createTestActor({ chatHandler: handler });
    const first = await app.request(post(body, { 'Idempotency-Key': 'key-1' }));
    const again = await app.request(post(body, { 'Idempotency-Key': 'key-1' }));
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(await again.json()).toEqual(await first.json());
    expect(calls.count).toBe(1);
    expect(await (await app.request('/stats')).json()).toMatchObject({ invocations: 1 });
    expect(await (await app.request('/metrics')).text()).toContain('actor_invocations_total{outcome="replayed"} 1');
  });

  it('answers 409 while the first request with the key still runs', async () => {
    const gate = deferred();
    const entered = deferred();
    const { handler } = countingHandler(async (input) => {
      entered.resolve();
      await gate.promise;
      return offlineChatHandler(input);
    });
    const app = await createTestActor({ chatHandler: handler });
    const first = app.request(post(body, { 'Idempotency-Key': 'key-2' }));
    await entered.promise;
    const during = await app.request(post(body, { 'Idempotency-Key': 'key-2' }));
    expect(during.status).toBe(409);
    expect(await during.json()).toMatchObject({ code: 'idempotency_key_in_use' });
    expect(during.headers.get('retry-after')).toBe('1');
    gate.resolve();
    expect((await first).status).toBe(200);
  });

  it('answers 422 when the key comes back with another body', async () => {
    const app = await createTestActor();
    await app.request(post(body, { 'Idempotency-Key': 'key-3' }));
    const reused = await app.request(post({ ...body, message: 'something else' }, { 'Idempotency-Key': 'key-3' }));
    expect(reused.status).toBe(422);
    expect(await reused.json()).toMatchObject({ code: 'idempotency_key_reused' });
  });

  it('scopes keys per tenant', async () => {
    const { handler, calls } = countingHandler();
    const app = await createTestActor({ chatHandler: handler });
    await app.request(post(body, { 'Idempotency-Key': 'shared', 'X-Tenant-Id': 'acme' }));
    const other = await app.request(post(body, { 'Idempotency-Key': 'shared', 'X-Tenant-Id': 'globex' }));
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect(calls.count).toBe(2);
  });

  it('frees the key when the invoke fails, so a retry runs', async () => {
    let fail = true;
    const app = await createTestActor({
      chatHandler: async (input) => {
        if (fail) throw new Error('first attempt breaks');
        return offlineChatHandler(input);
      },
    });
    expect((await app.request(post(body, { 'Idempotency-Key': 'key-4' }))).status).toBe(500);
    fail = false;
    const retry = await app.request(post(body, { 'Idempotency-Key': 'key-4' }));
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
  });

  it('replays a completed invoke as a stream when the retry asks for one', async () => {
    const app = await createTestActor();
    const json = await (await app.request(post(body, { 'Idempotency-Key': 'key-5' }))).json();
    const replay = await app.request(post({ ...body, stream: true }, { 'Idempotency-Key': 'key-5' }));
    expect(replay.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const read = await readUiStream(replay.body!);
    expect(read.text).toBe(json.message.content);
    expect(read.message!.id).toBe(json.message.id);
  });

  it('stores the reply of a streamed invoke for a JSON retry', async () => {
    const app = await createTestActor();
    const streamed = await readUiStream(
      (await app.request(post({ ...body, stream: true }, { 'Idempotency-Key': 'key-6' }))).body!,
    );
    const replay = await (await app.request(post(body, { 'Idempotency-Key': 'key-6' }))).json();
    expect(replay.message.content).toBe(streamed.text);
  });

  it('refuses a malformed key with 400', async () => {
    const app = await createTestActor();
    for (const key of ['has space', 'x'.repeat(256), 'ünïcode']) {
      const response = await app.request(post(body, { 'Idempotency-Key': key }));
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'invalid_header' });
    }
  });

  it('still answers when the store cannot be asked, and says the key was not honoured', async () => {
    const store = new MemoryStore();
    const app = await createTestActor({ store });
    store.failure = new Error('database is down');
    const response = await app.request(post(body, { 'Idempotency-Key': 'key-7' }));
    expect(response.status).toBe(200);
    expect((await response.json()).metadata).toMatchObject({ idempotency_unavailable: true });
  });

  it('fingerprints the request, not its spelling or the stream flag', async () => {
    const base = await requestFingerprint({ ...body, role: 'user' });
    expect(
      await requestFingerprint({
        role: 'user',
        message: 'hello there',
        session_id: 's-1',
        user_identifier: 'u-1',
        stream: true,
      }),
    ).toBe(base);
    expect(await requestFingerprint({ ...body, role: 'system' })).not.toBe(base);
    expect(await requestFingerprint({ ...body, role: 'user', metadata: { a: [1, { b: 2 }] } })).not.toBe(
      await requestFingerprint({ ...body, role: 'user', metadata: { a: [1, { b: 3 }] } }),
    );
  });
});

describe('IdempotencyKey, the header as /openapi.json documents it (#40)', () => {
  it.each(['k', 'a'.repeat(255), ' key\t', '\tkey'])('admits %j (HTTP strips the spaces and tabs around it)', (key) => {
    expect(v.is(IdempotencyKey, key)).toBe(true);
  });
  it.each(['', ' ', 'a b', 'a'.repeat(256), 'caf\u00e9', 'a\nb'])('refuses %j', (key) => {
    expect(v.is(IdempotencyKey, key)).toBe(false);
  });
});
