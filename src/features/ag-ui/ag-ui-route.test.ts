import { HttpAgent } from '@ag-ui/client';
import type { BaseEvent } from '@ag-ui/core';
import { EventSchemas } from '@ag-ui/core/schemas';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { ActorTool } from '../../agent/actor-tool.js';
import { buildPlatformConfig } from '../../config/emit/build-platform-config.js';
import { ActorError } from '../../core/actor-error.js';
import { defaultActorFeatures, type ActorDefinition } from '../../core/actor-definition.js';
import { createTestActor, testActorDefinition } from '../../testing/create-test-actor.js';
import { testActorsForThisFile } from '../../../test/surfaces/loopback.js';
import { lookupTool } from '../../../test/surfaces/mcp-test-actor.js';

/** The test actor with `expose_ag_ui` on. */
const agUiDefinition: ActorDefinition = {
  ...testActorDefinition,
  features: { ...defaultActorFeatures, exposeAgUi: true },
};

/** Needs a person's approval for every call: the run ends with an interrupt. */
const mailTool = new ActorTool({
  name: 'mail_send',
  description: 'Sends an email',
  argsSchema: v.object({ to: v.string() }),
  needsApproval: true,
  run: ({ to }) => ({ sent: to }),
});

const serveActor = testActorsForThisFile({ tools: [lookupTool, mailTool] });

/** Serves the AG-UI test actor on loopback; resolves with the URL of its AG-UI route. */
async function serveAgUiActor(
  definition: ActorDefinition = agUiDefinition,
  options: Parameters<typeof createTestActor>[0] = {},
): Promise<string> {
  return `${await serveActor({ definition, ...options })}/agent/ag-ui`;
}

/** Runs `HttpAgent` (as @ag-ui/client's docs show it) with one user message; resolves with every event it saw. */
async function runAgent(
  url: string,
  text: string,
  options: { threadId?: string; headers?: Record<string, string> } = {},
): Promise<{ events: BaseEvent[]; agent: HttpAgent }> {
  const agent = new HttpAgent({
    url,
    headers: options.headers ?? {},
    threadId: options.threadId ?? `thread-${crypto.randomUUID()}`,
    initialMessages: [{ id: 'm1', role: 'user', content: text }],
  });
  const events: BaseEvent[] = [];
  agent.subscribe({ onEvent: ({ event }) => void events.push(event) });
  await agent.runAgent({ runId: 'run-1' });
  return { events, agent };
}

const post = (url: string, body: string, headers: Record<string, string> = { 'Content-Type': 'application/json' }) =>
  fetch(url, { method: 'POST', headers, body });

const input = (overrides: Record<string, unknown> = {}) =>
  JSON.stringify({
    threadId: 'thread-1',
    runId: 'run-1',
    messages: [{ id: 'm1', role: 'user', content: 'hello' }],
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
    ...overrides,
  });

describe('POST /agent/ag-ui (expose_ag_ui): the actor as an AG-UI agent', () => {
  it("runs a turn with a tool call for @ag-ui/client's HttpAgent: the tool call, its result, the text and the run's end, in order", async () => {
    const url = await serveAgUiActor();
    const { events, agent } = await runAgent(url, 'use tool test_lookup with {"topic": "ada"}');

    for (const event of events) expect(EventSchemas.safeParse(event).success, JSON.stringify(event)).toBe(true);
    // The offline model streams its text in pieces: one TEXT_MESSAGE_CONTENT per piece.
    const types = events.map((event) => event.type).filter((type, index, all) => type !== all[index - 1]);
    expect(types).toEqual([
      'RUN_STARTED',
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'TOOL_CALL_RESULT',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'STATE_SNAPSHOT',
      'RUN_FINISHED',
    ]);
    const byType = (type: string) => events.find((event) => event.type === type) as Record<string, unknown>;
    expect(byType('RUN_STARTED')).toMatchObject({
      threadId: agent.threadId,
      runId: 'run-1',
      metadata: { actorkit_run_id: expect.stringMatching(/^inv_/) },
    });
    expect(byType('TOOL_CALL_START')).toMatchObject({ toolCallName: 'test_lookup' });
    expect(JSON.parse(byType('TOOL_CALL_ARGS').delta as string)).toEqual({ topic: 'ada' });
    expect(JSON.parse(byType('TOOL_CALL_RESULT').content as string)).toEqual({ topic: 'ada', text: 'about ada' });
    const text = events
      .filter((event) => event.type === 'TEXT_MESSAGE_CONTENT')
      .map((event) => (event as unknown as { delta: string }).delta)
      .join('');
    expect(text).toContain('about ada');
    expect(byType('RUN_FINISHED')).toMatchObject({ runId: 'run-1', outcome: { type: 'success' } });
    expect(byType('STATE_SNAPSHOT')).toMatchObject({
      snapshot: { actorkit: { session_id: agent.threadId, status: 'completed' } },
    });
    // The client built its conversation from the events: the tool call, its result and the answer.
    expect(agent.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('ends a run that waits for a tool approval with an interrupt; the next run resumes it', async () => {
    const url = await serveAgUiActor();
    const threadId = `thread-${crypto.randomUUID()}`;
    const { events, agent } = await runAgent(url, 'use tool mail_send with {"to": "ada@example.com"}', { threadId });
    const finished = events.at(-1) as { type: string; outcome: { type: string; interrupts: { id: string }[] } };
    expect(finished).toMatchObject({
      type: 'RUN_FINISHED',
      outcome: { type: 'interrupt', interrupts: [{ reason: 'tool_approval', id: expect.stringMatching(/^apr_inv_/) }] },
    });
    const [interrupt] = finished.outcome.interrupts;

    const resumed: BaseEvent[] = [];
    await agent.runAgent(
      { runId: 'run-2', resume: [{ interruptId: interrupt!.id, status: 'resolved', payload: { approved: true } }] },
      { onEvent: ({ event }) => void resumed.push(event) },
    );
    for (const event of [...events, ...resumed])
      expect(EventSchemas.safeParse(event).success, JSON.stringify(event)).toBe(true);
    expect(resumed.map((event) => event.type)).toContain('TOOL_CALL_RESULT');
    expect(resumed.at(-1)).toMatchObject({ type: 'RUN_FINISHED', runId: 'run-2', outcome: { type: 'success' } });
    const result = resumed.find((event) => event.type === 'TOOL_CALL_RESULT') as unknown as { content: string };
    expect(JSON.parse(result.content)).toEqual({ sent: 'ada@example.com' });
  });

  it('takes the tenant from X-Tenant-Id and replays an Idempotency-Key retry', async () => {
    const url = await serveAgUiActor();
    const headers = { 'Content-Type': 'application/json', 'X-Tenant-Id': 'acme', 'Idempotency-Key': 'key-1' };
    const first = await post(url, input(), headers);
    expect(first.status).toBe(200);
    const firstText = await first.text();
    expect(firstText).toContain('"RUN_FINISHED"');
    const again = await post(url, input(), headers);
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await again.text()).toContain('"RUN_FINISHED"');
    expect((await post(url, input(), { ...headers, 'X-Tenant-Id': 'bad tenant!' })).status).toBe(400);
    const stats = (await (await fetch(url.replace('/agent/ag-ui', '/stats/acme'))).json()) as { invocations: number };
    expect(stats.invocations).toBe(1);
  });

  it('ends a turn that fails once the stream has started with RUN_ERROR, never a 500', async () => {
    const url = await serveAgUiActor(agUiDefinition, {
      chatHandler: async ({ onEvent }) => {
        onEvent?.({ type: 'text-delta', delta: 'Let me see' });
        throw new ActorError('model_error', { detail: 'The model went away' });
      },
    });
    const response = await post(url, input());
    expect(response.status).toBe(200);
    const events = (await response.text())
      .split('\n\n')
      .filter((frame) => frame.startsWith('data: '))
      .map((frame) => JSON.parse(frame.slice('data: '.length)) as { type: string });
    for (const event of events) expect(EventSchemas.safeParse(event).success, JSON.stringify(event)).toBe(true);
    expect(events.map((event) => event.type)).toEqual([
      'RUN_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'RUN_ERROR',
    ]);
    expect(events.at(-1)).toMatchObject({ code: 'model_error', message: 'The model went away' });
  });

  it.each([
    ['a malformed RunAgentInput', input({ messages: 'hello' }), undefined, 422, '/messages'],
    ['a missing runId', input({ runId: undefined }), undefined, 422, '/runId'],
    ['a thread id that is no session id', input({ threadId: 'a b' }), undefined, 422, '/threadId'],
    [
      'a last message that is not the user’s',
      input({ messages: [{ id: 'm1', role: 'assistant', content: 'hi' }] }),
      undefined,
      422,
      '/messages/0/role',
    ],
    [
      'an image part',
      input({ messages: [{ id: 'm1', role: 'user', content: [{ type: 'binary', mimeType: 'image/png' }] }] }),
      undefined,
      422,
      '/messages/0/content/0',
    ],
    [
      'a resume reason over 2000 characters',
      input({ resume: [{ interruptId: 'apr_1', status: 'cancelled', payload: { reason: 'x'.repeat(2_001) } }] }),
      undefined,
      422,
      '/resume/0/payload/reason',
    ],
    [
      'a resume naming an approval nobody asked for',
      input({ resume: [{ interruptId: 'apr_1', status: 'resolved' }] }),
      undefined,
      404,
      undefined,
    ],
    ['malformed JSON', '{"threadId":', undefined, 400, undefined],
    ['text/plain', input(), { 'Content-Type': 'text/plain' }, 415, undefined],
    ['an oversized body', input({ state: { big: 'x'.repeat(2_000_000) } }), undefined, 413, undefined],
  ])('answers %s with a problem, never a 500', async (_name, body, headers, status, pointer) => {
    const url = await serveAgUiActor();
    const response = await post(url, body, headers);
    expect(response.status).toBe(status);
    expect(response.headers.get('Content-Type')).toContain('application/problem+json');
    const problem = (await response.json()) as { errors?: { pointer: string }[] };
    if (pointer !== undefined) expect(problem.errors?.map((error) => error.pointer)).toContain(pointer);
  });

  it('is not mounted when expose_ag_ui is off', async () => {
    const url = await serveAgUiActor(testActorDefinition);
    expect((await post(url, input())).status).toBe(404);
  });

  it("is listed in the emitted config.json's contract endpoints, as the app serves it", async () => {
    const listed = (definition: ActorDefinition) =>
      buildPlatformConfig({ definition, packageJson: {} }).contract.endpoints.map(
        (endpoint) => `${endpoint.method} ${endpoint.path}`,
      );
    expect(listed(agUiDefinition)).toContain('POST /agent/ag-ui');
    expect(listed(testActorDefinition)).not.toContain('POST /agent/ag-ui');
    const app = await createTestActor({ definition: agUiDefinition });
    const document = (await (await app.request('/openapi.json')).json()) as { paths: Record<string, unknown> };
    expect(document.paths['/agent/ag-ui']).toHaveProperty('post.operationId', 'runAgUi');
    // threadId is the session: the document says its rules, so a thread id it admits is one the actor takes (#40).
    expect(document.paths['/agent/ag-ui']).toHaveProperty(
      'post.requestBody.content.application/json.schema.properties.threadId.pattern',
    );
    await app.actor.shutdown({ graceMs: 1_000 });
  });
});
