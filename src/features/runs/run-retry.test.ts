import { describe, expect, it } from 'vitest';
import type { ChatHandler, ChatInput } from '../../invoke/chat-handler.js';
import { MemoryStore } from '../../store/memory-store.js';
import type { StoredRun } from '../../store/store.js';
import { createTestActor } from '../../testing/create-test-actor.js';

const request = { user_identifier: 'u-1', session_id: 's-1', message: 'count to three', background: true };

/** A run an instance that died left in progress, its lease long expired, with `parts` stored. */
async function leftBehind(store: MemoryStore, sideEffects: boolean, parts: readonly object[]): Promise<StoredRun> {
  const run: StoredRun = {
    id: `inv_left_${sideEffects}_${parts.length}`,
    tenantId: 'default',
    sessionId: request.session_id,
    state: 'running',
    background: true,
    createdAtMs: Date.now() - 60_000,
    finishedAtMs: null,
    inputTokens: 0,
    outputTokens: 0,
    reply: null,
    problem: null,
    runner: 'dead-instance',
    leaseExpiresAtMs: Date.now() - 30_000,
    cancelRequested: false,
    lastSeq: parts.length,
    request: JSON.stringify(request),
    sideEffects,
    approvals: null,
  };
  await store.writeRuns([{ run, parts: { firstSeq: 1, parts: parts.map((part) => JSON.stringify(part)) } }]);
  return run;
}

/** A chat handler that answers `one two three`, a word at a time, and keeps what it was asked. */
function countingHandler(): ChatHandler & { readonly inputs: ChatInput[] } {
  const inputs: ChatInput[] = [];
  const handler = async (input: ChatInput) => {
    inputs.push(input);
    for (const word of ['one', 'two', 'three']) input.onEvent?.({ type: 'text-delta', delta: `${word} ` });
    return {
      content: 'one two three',
      toolCalls: [],
      finishReason: 'stop' as const,
      usage: { inputTokens: 3, outputTokens: 3 },
      model: 'counting',
    };
  };
  return Object.assign(handler, { inputs });
}

/** Reads the run until it has ended. */
async function ended(app: { request(path: string): Response | Promise<Response> }, id: string) {
  for (let attempt = 0; ; attempt += 1) {
    const run = (await (await app.request(`/agent/runs/${id}`)).json()) as {
      state: string;
      last_seq: number;
      problem?: { code: string };
      reply?: { message: { content: string } };
      created_at: string;
    };
    if (run.state !== 'running' || attempt > 100) return run;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The numbers and types of a run's stream from its start. */
async function streamOf(app: { request(path: string): Response | Promise<Response> }, id: string) {
  const body = await (await app.request(`/agent/runs/${id}/stream?after=0`)).text();
  return body
    .split('\n\n')
    .filter((event) => event.startsWith('id: '))
    .map((event) => {
      const [idLine, dataLine] = event.split('\n');
      return { seq: Number(idLine!.slice(4)), type: (JSON.parse(dataLine!.slice(6)) as { type: string }).type };
    });
}

const earlierParts = [
  { type: 'start', messageId: 'msg_dead', messageMetadata: { run_id: 'x' } },
  { type: 'start-step' },
];

describe('a run taken over at start (RUN_RETRY_READ_ONLY)', () => {
  it('is run again from its stored request when no tool with side effects ran, its parts numbered on', async () => {
    const store = new MemoryStore();
    const left = await leftBehind(store, false, earlierParts);
    const chatHandler = countingHandler();
    const app = await createTestActor({ store, chatHandler, env: { RUN_RETRY_READ_ONLY: 'true' } });

    const run = await ended(app, left.id);
    expect(run.state).toBe('completed');
    expect(run.reply?.message.content).toBe('one two three');
    expect(run.created_at).toBe(new Date(left.createdAtMs).toISOString());
    expect(chatHandler.inputs).toHaveLength(1);
    expect(chatHandler.inputs[0]!.request.message).toBe(request.message);
    const parts = await streamOf(app, left.id);
    expect(parts.map((part) => part.seq)).toEqual(Array.from({ length: run.last_seq }, (_, i) => i + 1));
    expect(parts.slice(0, 3).map((part) => part.type)).toEqual(['start', 'start-step', 'start']);
    expect(parts.at(-1)?.type).toBe('finish');
  });

  it('fails `runner_lost` when a tool with side effects ran, and never calls the handler', async () => {
    const store = new MemoryStore();
    const left = await leftBehind(store, true, earlierParts);
    const chatHandler = countingHandler();
    const app = await createTestActor({ store, chatHandler, env: { RUN_RETRY_READ_ONLY: 'true' } });

    const run = await ended(app, left.id);
    expect(run.state).toBe('failed');
    expect(run.problem?.code).toBe('runner_lost');
    expect(chatHandler.inputs).toHaveLength(0);
    expect((await streamOf(app, left.id)).map((part) => part.type)).toEqual(['start', 'start-step', 'error']);
  });

  it('fails `runner_lost` when it was retried once already (its parts hold a second start)', async () => {
    const store = new MemoryStore();
    const left = await leftBehind(store, false, [...earlierParts, { type: 'start', messageId: 'msg_retry' }]);
    const chatHandler = countingHandler();
    const app = await createTestActor({ store, chatHandler, env: { RUN_RETRY_READ_ONLY: 'true' } });

    const run = await ended(app, left.id);
    expect(run.problem?.code).toBe('runner_lost');
    expect(chatHandler.inputs).toHaveLength(0);
  });

  it('fails `runner_lost` without RUN_RETRY_READ_ONLY', async () => {
    const store = new MemoryStore();
    const left = await leftBehind(store, false, earlierParts);
    const chatHandler = countingHandler();
    const app = await createTestActor({ store, chatHandler });

    expect((await ended(app, left.id)).problem?.code).toBe('runner_lost');
    expect(chatHandler.inputs).toHaveLength(0);
  });
});
