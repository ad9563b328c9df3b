import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { ActorTool } from '../../src/agent/actor-tool.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../src/log/logger.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { openStore } from '../../src/store/open-store.js';
import { createTestActor, testActorDefinition } from '../../src/testing/create-test-actor.js';
import { toolApprovalOf } from '../../src/agent/mcp-tool-source.js';
import { defaultActorFeatures } from '../../src/core/actor-definition.js';
import { approvalsPanel, panelRouter } from '../../src/surfaces/panel/index.js';
import { completion, fakeOpenAIForThisFile, toolCallChunks } from './fake-openai-server.js';
import { startHttpMcpServer } from './fixtures/http-mcp-server.js';
import { mailCall, pendingMail, sendEmail, sent } from './fixtures/mail-send-tool.js';
import { readUiStream } from './ui-stream-reader.js';
import { fakeModelEnv } from './fixtures/fake-model-env.js';

/** Asks only for large amounts. */
const pay = new ActorTool({
  name: 'bank_pay',
  description: 'Pays an amount',
  argsSchema: v.object({ amount: v.number() }),
  needsApproval: ({ amount }) => amount > 100,
  run: ({ amount }) => ({ paid: amount }),
});

const server = await fakeOpenAIForThisFile();
const env = fakeModelEnv(server.baseUrl);
const post = (payload: Record<string, unknown>, tenant = 'acme') =>
  new Request('http://actor/agent/invoke', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Tenant-Id': tenant },
    body: JSON.stringify({ user_identifier: 'ann', session_id: 'chat-1', ...payload }),
  });

/** Polls `GET /agent/runs/{id}` of tenant acme every 20 ms until the run completed or `withinMs` passed; the run as last read. */
async function runOnceCompleted(
  app: { request(path: string, init: RequestInit): Response | Promise<Response> },
  runId: string,
  withinMs: number,
): Promise<{ state: string; reply?: { message: { content: string } } }> {
  let run = { state: 'running' };
  for (const deadline = Date.now() + withinMs; run.state !== 'completed' && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    run = await (await app.request(`/agent/runs/${runId}`, { headers: { 'X-Tenant-Id': 'acme' } })).json();
  }
  return run;
}

describe('tools that need a person’s approval', () => {
  it('pause the run awaiting_input; approved runs the tool, denied tells the model why, and the run completes', async () => {
    sent.length = 0;
    const store = new MemoryStore();
    const app = await createTestActor({ env, tools: [sendEmail, pay], store });
    server.reply(
      {
        kind: 'json',
        body: completion(null, { toolCalls: [mailCall('call_a', 'ada@x'), mailCall('call_b', 'bob@x')] }),
      },
      { kind: 'json', body: completion('Sent to Ada; Bob was refused.') },
    );
    const paused = await (await app.request(post({ message: 'Mail Ada and Bob' }))).json();
    expect(paused).toMatchObject({ status: 'awaiting_input', finish_reason: 'tool_calls' });
    expect(paused.approvals).toEqual([pendingMail('call_a', 'ada@x'), pendingMail('call_b', 'bob@x')]);
    expect(sent).toEqual([]);
    const status = await (await app.request(`/agent/runs/${paused.id}`, { headers: { 'X-Tenant-Id': 'acme' } })).json();
    expect(status).toMatchObject({ state: 'awaiting_input', finished_at: null });

    // A new message first is refused: the calls wait for their answers.
    const early = await app.request(post({ message: 'Never mind' }));
    expect(early.status).toBe(409);
    expect(await early.json()).toMatchObject({ code: 'approval_pending' });

    const [ada, bob] = paused.approvals;
    const answered = await app.request(
      post({
        approvals: [
          { id: ada.id, approved: true },
          { id: bob.id, approved: false, reason: 'not Bob' },
        ],
      }),
    );
    expect(answered.status).toBe(200);
    const done = await answered.json();
    expect(done).toMatchObject({
      id: paused.id,
      status: 'completed',
      message: { content: 'Sent to Ada; Bob was refused.' },
    });
    expect(sent).toEqual(['ada@x']);
    const continued = server.requests.at(-1)!.body.messages;
    expect(continued.slice(-3)).toEqual([
      expect.objectContaining({ role: 'assistant', tool_calls: expect.any(Array) }),
      expect.objectContaining({ role: 'tool', tool_call_id: 'call_a', content: JSON.stringify({ sent: 'ada@x' }) }),
      expect.objectContaining({
        role: 'tool',
        tool_call_id: 'call_b',
        content: JSON.stringify({ error: 'A person denied this tool call: not Bob', code: 'approval_denied' }),
      }),
    ]);
    const final = await (await app.request(`/agent/runs/${paused.id}`, { headers: { 'X-Tenant-Id': 'acme' } })).json();
    expect(final).toMatchObject({
      state: 'completed',
      reply: { message: { content: 'Sent to Ada; Bob was refused.' } },
    });

    // Once decided, an answer again is refused: the completed run keeps its decisions.
    const again = await app.request(post({ approvals: [{ id: ada.id, approved: true }] }));
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ code: 'approval_already_decided' });
    // The run's row keeps who decided what.
    const kept = JSON.parse((await store.readRun(paused.id))?.approvals ?? '[]');
    expect(kept.map((approval: { decision: { approved: boolean } }) => approval.decision.approved)).toEqual([
      true,
      false,
    ]);
  });

  it('asks only when the tool’s own rule says so, and streams the AI SDK’s tool-approval-request part', async () => {
    const app = await createTestActor({ env, tools: [pay] });
    server.reply(
      {
        kind: 'json',
        body: completion(null, { toolCalls: [{ id: 'c1', name: 'bank_pay', arguments: '{"amount":5}' }] }),
      },
      { kind: 'json', body: completion('Paid 5.') },
      { kind: 'stream', chunks: toolCallChunks('c2', 'bank_pay', ['{"amount":', '500}']) },
    );
    const small = await (await app.request(post({ message: 'Pay 5', session_id: 'pay-1' }))).json();
    expect(small).toMatchObject({ status: 'completed', tool_calls: [{ name: 'bank_pay', status: 'ok' }] });
    const streamed = await app.request(post({ message: 'Pay 500', session_id: 'pay-2', stream: true }));
    // Read by AI SDK 6's own reader: every chunk validated, the message assembled as useChat would.
    const read = await readUiStream(streamed.body!);
    const parts = read.chunks as { type: string; approvalId?: string; toolCallId?: string }[];
    expect(read.message?.parts.find((part) => part.type === 'dynamic-tool')).toMatchObject({
      state: 'approval-requested',
      toolCallId: 'c2',
      approval: { id: expect.stringMatching(/^apr_/) },
    });
    const request = parts.find((part) => part.type === 'tool-approval-request');
    expect(request).toEqual({
      type: 'tool-approval-request',
      approvalId: expect.stringMatching(/^apr_/),
      toolCallId: 'c2',
    });
    expect(parts.map((part) => part.type).slice(-2)).toEqual(['data-session', 'finish']);
  });

  it("refuses what it must: an unknown approval, another tenant's or session's 404, a bad answer 422", async () => {
    const app = await createTestActor({ env, tools: [sendEmail] });
    server.reply({ kind: 'json', body: completion(null, { toolCalls: [mailCall('call_x', 'eve@x')] }) });
    const paused = await (await app.request(post({ message: 'Mail Eve', session_id: 'chat-9' }))).json();
    const unknown = await app.request(post({ session_id: 'chat-9', approvals: [{ id: 'apr_nope', approved: true }] }));
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ code: 'approval_not_found' });
    const otherTenant = await app.request(
      post({ session_id: 'chat-9', approvals: [{ id: paused.approvals[0].id, approved: true }] }, 'globex'),
    );
    expect(otherTenant.status).toBe(404);
    expect(await otherTenant.json()).toMatchObject({ code: 'approval_not_found' });
    const otherSession = await app.request(
      post({ session_id: 'chat-other', approvals: [{ id: paused.approvals[0].id, approved: true }] }),
    );
    expect(otherSession.status).toBe(404);
    expect(await otherSession.json()).toMatchObject({ code: 'approval_not_found' });
    const missing = await app.request(post({ session_id: 'chat-9', approvals: [{ id: paused.approvals[0].id }] }));
    expect(missing.status).toBe(422);
    expect(JSON.stringify(await missing.json())).toContain('approvals');
    const long = await app.request(
      post({
        session_id: 'chat-9',
        approvals: [{ id: paused.approvals[0].id, approved: false, reason: 'x'.repeat(2_001) }],
      }),
    );
    expect(long.status).toBe(422);
    const noMessage = await app.request(post({ session_id: 'chat-9' }));
    expect(noMessage.status).toBe(422);
  });

  it('POST /agent/runs/{id}/approvals/{approval_id} decides one call at a time; after the last the run goes on by itself', async () => {
    sent.length = 0;
    const app = await createTestActor({ env, tools: [sendEmail] });
    server.reply(
      { kind: 'json', body: completion(null, { toolCalls: [mailCall('call_c', 'cy@x'), mailCall('call_d', 'di@x')] }) },
      { kind: 'json', body: completion('Mailed Cy only.') },
    );
    const paused = await (await app.request(post({ message: 'Mail Cy and Di', session_id: 'chat-5' }))).json();
    const decide = (approvalId: string, body: unknown, tenant = 'acme') =>
      app.request(`/agent/runs/${paused.id}/approvals/${approvalId}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Tenant-Id': tenant },
        body: JSON.stringify(body),
      });
    const [cy, di] = paused.approvals;
    const first = await decide(cy.id, { approved: true, decided_by: 'owner@acme' });
    expect(first.status).toBe(200);
    const afterFirst = await first.json();
    expect(afterFirst).toMatchObject({ id: paused.id, state: 'awaiting_input' });
    // The run lists only the call still waiting.
    expect(afterFirst.reply.approvals.map((approval: { id: string }) => approval.id)).toEqual([di.id]);
    expect(sent).toEqual([]);
    expect((await decide(cy.id, { approved: false })).status).toBe(409);
    expect(await (await decide(cy.id, { approved: false })).json()).toMatchObject({ code: 'approval_already_decided' });
    expect(await (await decide(di.id, { approved: true }, 'globex')).json()).toMatchObject({ code: 'run_not_found' });
    expect(await (await decide('apr_unknown', { approved: true })).json()).toMatchObject({
      code: 'approval_not_found',
    });
    const malformed = await decide(di.id, { approved: 'yes' });
    expect(malformed.status).toBe(422);
    const last = await decide(di.id, { approved: false, reason: 'Di is on leave' });
    expect(last.status).toBe(200);
    expect((await last.json()).state).not.toBe('awaiting_input');
    const run = await runOnceCompleted(app, paused.id, 2000);
    expect(run).toMatchObject({ state: 'completed', reply: { message: { content: 'Mailed Cy only.' } } });
    expect(sent).toEqual(['cy@x']);
  });

  it('the approvals panel lists the tenant’s pending calls and decides them as the owner; the run then completes', async () => {
    sent.length = 0;
    const app = await createTestActor({
      env,
      tools: [sendEmail],
      definition: { ...testActorDefinition, features: { ...defaultActorFeatures, includePanel: true } },
      routers: [panelRouter({ panels: [approvalsPanel()] })],
    });
    server.reply(
      {
        kind: 'json',
        body: completion(null, { toolCalls: [mailCall('call_p', 'pia@x'), mailCall('call_q', 'quinn@x')] }),
      },
      { kind: 'json', body: completion('Mailed Pia; Quinn was refused.') },
    );
    const paused = await (await app.request(post({ message: 'Mail Pia and Quinn', session_id: 'chat-p' }))).json();
    const [pia, quinn] = paused.approvals;
    const data = await (await app.request('/panel/approvals/data', { headers: { 'X-Tenant-Id': 'acme' } })).json();
    expect(data).toEqual({
      tenant_id: 'acme',
      waiting_runs: 1,
      pending: 2,
      approvals: {
        [pia.id]: {
          run_id: paused.id,
          session_id: 'chat-p',
          tool: 'mail_send',
          arguments: { to: 'pia@x', body: 'hi' },
          asked_at: expect.stringMatching(/^\d{4}-/),
        },
        [quinn.id]: expect.objectContaining({ tool: 'mail_send', arguments: { to: 'quinn@x', body: 'hi' } }),
      },
    });
    // Another tenant sees none of them, and cannot decide them.
    const elsewhere = await (
      await app.request('/panel/approvals/data', { headers: { 'X-Tenant-Id': 'globex' } })
    ).json();
    expect(elsewhere).toMatchObject({ tenant_id: 'globex', pending: 0, approvals: {} });
    const decide = (payload: unknown, tenant = 'acme') =>
      app.request('/panel/approvals/action', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Tenant-Id': tenant },
        body: JSON.stringify({ action: 'decide', payload }),
      });
    const stranger = await decide({ run_id: paused.id, approval_id: pia.id, approved: true }, 'globex');
    expect(stranger.status).toBe(404);
    expect(await stranger.json()).toMatchObject({ code: 'run_not_found' });
    const malformed = await decide({ run_id: paused.id, approval_id: pia.id, approved: 'yes' });
    expect(malformed.status).toBe(422);
    expect(await malformed.json()).toMatchObject({ errors: [{ pointer: '/payload/approved' }] });

    const first = await decide({ run_id: paused.id, approval_id: pia.id, approved: true });
    expect(await first.json()).toEqual({
      action: 'decide',
      result: { run_id: paused.id, approval_id: pia.id, decision: 'approved', state: 'awaiting_input' },
    });
    const left = await (await app.request('/panel/approvals/data', { headers: { 'X-Tenant-Id': 'acme' } })).json();
    expect(Object.keys(left.approvals)).toEqual([quinn.id]);
    const again = await decide({ run_id: paused.id, approval_id: pia.id, approved: false });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ code: 'approval_already_decided' });
    const last = await decide({ run_id: paused.id, approval_id: quinn.id, approved: false, reason: 'not Quinn' });
    expect((await last.json()).result).toMatchObject({ decision: 'denied', state: 'running' });
    const run = await runOnceCompleted(app, paused.id, 2000);
    expect(run).toMatchObject({
      state: 'completed',
      reply: { message: { content: 'Mailed Pia; Quinn was refused.' } },
    });
    expect(sent).toEqual(['pia@x']);
    expect(server.requests.at(-1)!.body.messages.at(-1)).toMatchObject({
      tool_call_id: 'call_q',
      content: JSON.stringify({ error: 'A person denied this tool call: not Quinn', code: 'approval_denied' }),
    });
    expect(
      (await (await app.request('/panel/approvals/data', { headers: { 'X-Tenant-Id': 'acme' } })).json()).pending,
    ).toBe(0);
  });

  it('an approval left unanswered past APPROVAL_TIMEOUT_S counts as denied (approval_expired); the model is told and the run completes', async () => {
    sent.length = 0;
    const app = await createTestActor({
      env: { ...env, APPROVAL_TIMEOUT_S: '1', RUN_LEASE_MS: '1000' },
      tools: [sendEmail],
    });
    server.reply(
      { kind: 'json', body: completion(null, { toolCalls: [mailCall('call_t', 'tim@x')] }) },
      { kind: 'json', body: completion('Nobody approved the mail to Tim.') },
    );
    const paused = await (await app.request(post({ message: 'Mail Tim', session_id: 'chat-t' }))).json();
    const run = await runOnceCompleted(app, paused.id, 3000);
    expect(run).toMatchObject({
      state: 'completed',
      reply: { message: { content: 'Nobody approved the mail to Tim.' } },
    });
    expect(sent).toEqual([]);
    expect(server.requests.at(-1)!.body.messages.at(-1)).toMatchObject({
      role: 'tool',
      tool_call_id: 'call_t',
      content: JSON.stringify({ error: 'A person denied this tool call: approval_expired', code: 'approval_denied' }),
    });
    const metrics = await (await app.request('/metrics')).text();
    expect(metrics).toContain('actor_tool_approvals_total{tool="mail_send",decision="expired"} 1');
  });

  it('a pending approval survives a restart of the actor on its SQLite file, then is approved and completes', async () => {
    sent.length = 0;
    const dir = mkdtempSync(join(tmpdir(), 'actorkit-approvals-'));
    const url = `file:${join(dir, 'actor.db')}`;
    const first = await createTestActor({
      env,
      tools: [sendEmail],
      store: await openStore({ url, logger: silentLogger }),
    });
    server.reply({ kind: 'json', body: completion(null, { toolCalls: [mailCall('call_r', 'rita@x')] }) });
    const paused = await (await first.request(post({ message: 'Mail Rita', session_id: 'chat-r' }))).json();
    await first.actor.shutdown({ graceMs: 1_000 });
    const second = await createTestActor({
      env,
      tools: [sendEmail],
      store: await openStore({ url, logger: silentLogger }),
    });
    const status = await (
      await second.request(`/agent/runs/${paused.id}`, { headers: { 'X-Tenant-Id': 'acme' } })
    ).json();
    expect(status).toMatchObject({ state: 'awaiting_input' });
    server.reply({ kind: 'json', body: completion('Mailed Rita.') });
    const done = await (
      await second.request(post({ session_id: 'chat-r', approvals: [{ id: paused.approvals[0].id, approved: true }] }))
    ).json();
    expect(done).toMatchObject({ id: paused.id, status: 'completed', message: { content: 'Mailed Rita.' } });
    expect(sent).toEqual(['rita@x']);
    await second.actor.shutdown({ graceMs: 1_000 });
  });

  it('TOOL_APPROVAL picks the MCP-sourced tools that need approval: named ones here; all but read-only ones with all', async () => {
    const mcp = await startHttpMcpServer();
    try {
      const app = await createTestActor({
        env: { ...env, MCP_SERVERS: JSON.stringify({ docs: { url: mcp.url } }), TOOL_APPROVAL: 'docs_echo' },
      });
      server.reply({
        kind: 'json',
        body: completion(null, {
          toolCalls: [
            { id: 'm1', name: 'docs_search_docs', arguments: '{"topic":"install"}' },
            { id: 'm2', name: 'docs_echo', arguments: '{"value":1}' },
          ],
        }),
      });
      const paused = await (await app.request(post({ message: 'Search and echo', session_id: 'mcp-1' }))).json();
      expect(paused).toMatchObject({
        status: 'awaiting_input',
        tool_calls: [{ name: 'docs_search_docs', status: 'ok' }],
        approvals: [{ tool: 'docs_echo', tool_call_id: 'm2', arguments: { value: 1 } }],
      });
    } finally {
      await mcp.close();
    }
    const all = toolApprovalOf('all');
    expect([all('docs_delete', false), all('docs_read', true)]).toEqual([true, false]);
    expect(toolApprovalOf('none')('docs_delete', false)).toBe(false);
    await expect(createTestActor({ env: { ...env, TOOL_APPROVAL: 'every tool' } })).rejects.toThrow(/TOOL_APPROVAL/);
  });

  it("takes the AI SDK's answers (approval-responded tool parts, as addToolApprovalResponse sends them) and streams the rest, a denied call as tool-output-denied", async () => {
    sent.length = 0;
    const app = await createTestActor({ env, tools: [sendEmail] });
    server.reply(
      {
        kind: 'json',
        body: completion(null, { toolCalls: [mailCall('call_u', 'uma@x'), mailCall('call_v', 'vic@x')] }),
      },
      { kind: 'json', body: completion('Mailed Uma.') },
    );
    const paused = await (await app.request(post({ message: 'Mail Uma and Vic', session_id: 'ui-1' }))).json();
    const [uma, vic] = paused.approvals;
    const toolPart = (approval: typeof uma, answer: Record<string, unknown>) => ({
      type: 'dynamic-tool',
      toolName: 'mail_send',
      toolCallId: approval.tool_call_id,
      state: 'approval-responded',
      input: approval.arguments,
      approval: { id: approval.id, ...answer },
    });
    const body = (parts: unknown[]) => ({
      id: 'ui-1',
      user_identifier: 'ann',
      trigger: 'submit-message',
      messageId: paused.message.id,
      messages: [
        { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Mail Uma and Vic' }] },
        { id: paused.message.id, role: 'assistant', parts: [{ type: 'step-start' }, ...parts] },
      ],
    });
    const send = (payload: unknown) =>
      app.request('/agent/invoke', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Tenant-Id': 'acme' },
        body: JSON.stringify(payload),
      });
    const malformed = await send(body([toolPart(uma, { approved: 'yes' })]));
    expect(malformed.status).toBe(422);
    expect(JSON.stringify(await malformed.json())).toContain('/messages/1/parts/1/approval/approved');
    const changed = await send(body([{ ...toolPart(uma, { approved: true }), input: { to: 'eve@x', body: 'hi' } }]));
    expect(changed.status).toBe(409);
    expect(await changed.json()).toMatchObject({ code: 'approval_arguments_changed' });

    const answered = await send(
      body([toolPart(uma, { approved: true }), toolPart(vic, { approved: false, reason: 'not Vic' })]),
    );
    expect(answered.headers.get('content-type')).toContain('text/event-stream');
    const parts = (await answered.text())
      .split('\n\n')
      .map((frame) => /^data: (\{.*)$/m.exec(frame)?.[1])
      .filter((data) => data !== undefined)
      .map((data) => JSON.parse(data) as { type: string; toolCallId?: string; delta?: string; messageId?: string });
    // As AI SDK 6's `streamText` goes on: in the paused message, the decided calls' outputs into
    // their parts (none reopened), then the next step.
    expect(parts[0]).toMatchObject({ type: 'start', messageId: paused.message.id });
    expect(parts.filter((part) => part.type === 'start')).toHaveLength(1);
    expect(parts.filter((part) => part.toolCallId !== undefined).map((part) => [part.type, part.toolCallId])).toEqual([
      ['tool-output-available', 'call_u'],
      ['tool-output-denied', 'call_v'],
    ]);
    expect(
      parts
        .filter((part) => part.type === 'text-delta')
        .map((part) => part.delta)
        .join(''),
    ).toBe('Mailed Uma.');
    expect(sent).toEqual(['uma@x']);
  });

  it('an answer retried with the same Idempotency-Key replays its reply: nothing runs twice', async () => {
    sent.length = 0;
    const app = await createTestActor({ env, tools: [sendEmail] });
    server.reply(
      { kind: 'json', body: completion(null, { toolCalls: [mailCall('call_k', 'kim@x')] }) },
      { kind: 'json', body: completion('Mailed Kim.') },
    );
    const paused = await (await app.request(post({ message: 'Mail Kim', session_id: 'idem-1' }))).json();
    const answer = () =>
      new Request('http://actor/agent/invoke', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Tenant-Id': 'acme', 'Idempotency-Key': 'answer-kim-1' },
        body: JSON.stringify({
          user_identifier: 'ann',
          session_id: 'idem-1',
          approvals: [{ id: paused.approvals[0].id, approved: true }],
        }),
      });
    const first = await app.request(answer());
    const firstBody = await first.text();
    const again = await app.request(answer());
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(firstBody);
    expect(JSON.parse(firstBody)).toMatchObject({
      id: paused.id,
      status: 'completed',
      message: { content: 'Mailed Kim.' },
    });
    expect(sent).toEqual(['kim@x']);
  });
});
