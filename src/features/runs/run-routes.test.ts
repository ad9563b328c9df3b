import { afterEach, describe, expect, it } from 'vitest';
import type { ChatHandler } from '../../invoke/chat-handler.js';
import { createTestActor } from '../../testing/create-test-actor.js';
import { slowChatHandler } from '../../../test/surfaces/slow-chat-handler.js';

const base = { user_identifier: 'u-1', session_id: 's-1', message: 'hello there' };

const post = (body: unknown, headers: Record<string, string> = {}) =>
  new Request('http://actor/agent/invoke', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

/** The SSE events of a finished stream: `[id, data]`, the `[DONE]` end as `[undefined, '[DONE]']`. */
async function events(response: Response): Promise<[number | undefined, string][]> {
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((frame) => frame.trim() !== '')
    .map((frame) => {
      const id = /^id: (\d+)$/m.exec(frame)?.[1];
      const data = /^data: (.*)$/m.exec(frame)?.[1] ?? '';
      return [id === undefined ? undefined : Number(id), data];
    });
}

const waitFor = async (check: () => Promise<boolean>, timeoutMs = 5_000) => {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

async function actor(handler: ChatHandler, env: Record<string, string> = {}) {
  const app = await createTestActor({ chatHandler: handler, env });
  stop = () => app.actor.shutdown({ graceMs: 2_000 });
  return app;
}

describe('runs', () => {
  it('a background invoke answers 202 with Location, and the run is polled to its reply', async () => {
    const app = await actor(slowChatHandler(['one', 'two'], 30));
    const accepted = await app.request(post({ ...base, background: true }));
    expect(accepted.status).toBe(202);
    const run = await accepted.json();
    expect(run).toMatchObject({ state: 'running', background: true, session_id: 's-1' });
    expect(accepted.headers.get('location')).toBe(`/agent/runs/${run.id}`);
    await waitFor(async () => (await (await app.request(`/agent/runs/${run.id}`)).json()).state === 'completed');
    const done = await (await app.request(`/agent/runs/${run.id}`)).json();
    expect(done.reply.message.content).toBe('one two ');
    expect(done.reply.id).toBe(run.id);
    expect(done.usage).toEqual({ input_tokens: 3, output_tokens: 2, total_tokens: 5 });
    expect(done.finished_at).not.toBeNull();
  });

  it('Prefer: respond-async is a background invoke too, and says so', async () => {
    const app = await actor(slowChatHandler(['one'], 10));
    const accepted = await app.request(post(base, { Prefer: 'respond-async, wait=10' }));
    expect(accepted.status).toBe(202);
    expect(accepted.headers.get('preference-applied')).toBe('respond-async');
  });

  it('a client that leaves a stream leaves the run going; the stream is resumed after the last part seen, each part once', async () => {
    const app = await actor(slowChatHandler(['a', 'b', 'c', 'd'], 40));
    const response = await app.request(post({ ...base, stream: true }));
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const lastId = Number([...first.matchAll(/^id: (\d+)$/gm)].at(-1)![1]);
    await reader.cancel();
    const run = JSON.parse(/^data: (.*)$/m.exec(first)![1]!);
    expect(run.type).toBe('start');
    // The run id is the reply id: find it from the session's runs through the stream's end.
    let runId = '';
    await waitFor(async () => {
      const resumed = await app.request(`/agent/invoke/s-1/stream`);
      if (resumed.status !== 200) return false;
      const parts = await events(resumed);
      const session = parts.map(([, data]) => data).find((data) => data.includes('data-session'));
      runId = JSON.parse(session!).data.invocation_id;
      return true;
    });
    const rest = await events(
      await app.request(`/agent/runs/${runId}/stream`, { headers: { 'Last-Event-ID': String(lastId) } }),
    );
    expect(rest[0]![0]).toBe(lastId + 1);
    const ids = rest.map(([id]) => id).filter((id) => id !== undefined);
    expect(ids).toEqual(ids.map((_, index) => lastId + 1 + index));
    expect(rest.at(-1)![1]).toBe('[DONE]');
    const all = await events(await app.request(`/agent/runs/${runId}/stream?after=0`));
    const text = all
      .map(([, data]) => data)
      .filter((data) => data.includes('text-delta'))
      .map((data) => JSON.parse(data).delta)
      .join('');
    expect(text).toBe('a b c d ');
    expect((await (await app.request(`/agent/runs/${runId}`)).json()).state).toBe('completed');
  });

  it('cancel stops the model call, ends the stream with a finish that says so, records cancelled; again is the same', async () => {
    const handler = slowChatHandler(['a', 'b', 'c', 'd', 'e', 'f'], 100);
    const app = await actor(handler);
    const accepted = await (await app.request(post({ ...base, background: true }))).json();
    const stream = app.request(`/agent/runs/${accepted.id}/stream`);
    await new Promise((resolve) => setTimeout(resolve, 150));
    const cancel = await app.request(`/agent/runs/${accepted.id}/cancel`, { method: 'POST' });
    expect(cancel.status).toBe(202);
    const parts = await events(await stream);
    const finish = JSON.parse(parts.at(-2)![1]);
    expect(finish).toMatchObject({ type: 'finish', messageMetadata: { run_state: 'cancelled' } });
    expect(handler.aborted()).toBe(true);
    await waitFor(async () => (await (await app.request(`/agent/runs/${accepted.id}`)).json()).state === 'cancelled');
    const again = await app.request(`/agent/runs/${accepted.id}/cancel`, { method: 'POST' });
    expect(again.status).toBe(202);
    expect((await again.json()).state).toBe('cancelled');
  });

  it('on_disconnect: "cancel" keeps the old behaviour: the dropped client cancels its run', async () => {
    const handler = slowChatHandler(['a', 'b', 'c'], 100);
    const app = await actor(handler);
    const client = new AbortController();
    const response = await app.request(
      new Request('http://actor/agent/invoke', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ ...base, stream: true, on_disconnect: 'cancel' }),
        signal: client.signal,
      }),
    );
    const reader = response.body!.getReader();
    await reader.read();
    client.abort();
    await reader.cancel().catch(() => {});
    await waitFor(async () => handler.aborted());
  });

  it('refuses what it must: unknown and other tenants’ runs 404, a finished run’s cancel 409, a bad cursor 400', async () => {
    const app = await actor(slowChatHandler(['a'], 1));
    const reply = await (await app.request(post({ ...base, metadata: { tenant_id: 'acme' } }))).json();
    for (const path of ['/agent/runs/inv_nope', `/agent/runs/${reply.id}`]) {
      const response = await app.request(path);
      expect(response.status).toBe(404);
      expect((await response.json()).code).toBe('run_not_found');
    }
    const mine = { headers: { 'X-Tenant-Id': 'acme' } };
    await waitFor(async () => (await app.request(`/agent/runs/${reply.id}`, mine)).status === 200);
    const finished = await app.request(`/agent/runs/${reply.id}/cancel`, { method: 'POST', ...mine });
    expect(finished.status).toBe(409);
    expect(await finished.json()).toMatchObject({ code: 'run_finished', detail: expect.stringContaining('completed') });
    for (const [query, header] of [
      ['?after=-1', undefined],
      ['?after=abc', undefined],
      ['', 'x1'],
      // The cursor that does not win must be well-formed too: what the document says of each.
      ['?after=', '0'],
    ] as const) {
      const response = await app.request(`/agent/runs/${reply.id}/stream${query}`, {
        headers: { 'X-Tenant-Id': 'acme', ...(header === undefined ? {} : { 'Last-Event-ID': header }) },
      });
      expect(response.status).toBe(400);
      expect((await response.json()).code).toBe('invalid_run_cursor');
    }
    expect((await app.request('/agent/invoke/s-unknown/stream')).status).toBe(204);
    const resume = await app.request('/agent/invoke/s-unknown/stream?after=', { headers: { 'Last-Event-ID': '0' } });
    expect(resume.status).toBe(400);
  });

  it('/health counts the runs in progress', async () => {
    const app = await actor(slowChatHandler(['a', 'b'], 100));
    await app.request(post({ ...base, background: true }));
    expect((await (await app.request('/health')).json()).runs_in_progress).toBe(1);
  });
});
