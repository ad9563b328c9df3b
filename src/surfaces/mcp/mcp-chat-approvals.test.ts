import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { completion, fakeOpenAIForThisFile } from '../../../test/agent/fake-openai-server.js';
import { mailCall, pendingMail, sendEmail, sent } from '../../../test/agent/fixtures/mail-send-tool.js';
import { connectMcpClient } from '../../../test/contract/mcp-contract.js';
import { docExamples } from '../../../test/docs/doc-examples.js';
import { REPOSITORY_ROOT } from '../../../test/support/built-package.js';
import { serveOnLoopback } from '../../../test/surfaces/loopback.js';
import { mcpActorsForThisFile, mcpTestDefinition } from '../../../test/surfaces/mcp-test-actor.js';
import { createTestActor } from '../../testing/create-test-actor.js';

const model = await fakeOpenAIForThisFile();
const env = {
  LLM_BASE_URL: model.baseUrl,
  LLM_MODEL: 'fake-model',
  LLM_API_KEY: 'sk-test',
  LLM_MAX_RETRIES: '0',
  LLM_TIMEOUT_MS: '2000',
};

const serveActor = mcpActorsForThisFile();

async function serveMcpActor(): Promise<string> {
  sent.length = 0;
  return serveActor({ env, tools: [sendEmail] });
}

/** The official SDK client declaring form elicitation, answering each question with `answer`. */
async function connectElicitingClient(
  url: string,
  answer: (request: ElicitRequest) => ElicitResult,
): Promise<{ client: Client; asked: ElicitRequest[] }> {
  const asked: ElicitRequest[] = [];
  const client = new Client({ name: 'approver', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(request);
    return answer(request);
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  return { client, asked };
}

const textOf = (result: Awaited<ReturnType<Client['callTool']>>): string =>
  (result.content as { type: string; text?: string }[]).map((part) => part.text ?? '').join('');

/** The tool messages the model got when the run went on. */
function toolMessagesSent() {
  const last = model.requests.at(-1);
  if (last === undefined) throw new Error('the model was never called');
  return (last.body.messages as { role: string; tool_call_id?: string; content: string }[]).filter(
    (message) => message.role === 'tool',
  );
}

describe('/mcp chat with a tool that needs approval', () => {
  it('asks a client that takes elicitation, per call: accepted runs the tool, declined is told to the model', async () => {
    const url = await serveMcpActor();
    model.reply(
      {
        kind: 'json',
        body: completion(null, { toolCalls: [mailCall('call_a', 'ada@x'), mailCall('call_b', 'bob@x')] }),
      },
      { kind: 'json', body: completion('Sent to Ada; Bob was refused.') },
    );
    const { client, asked } = await connectElicitingClient(url, (request) =>
      request.params.message.includes('ada@x')
        ? { action: 'accept', content: { approved: true } }
        : { action: 'decline' },
    );
    const result = await client.callTool({
      name: 'chat',
      arguments: { message: 'Mail Ada and Bob', session_id: 's-1' },
    });
    expect(asked.map((request) => request.params)).toEqual([
      {
        mode: 'form',
        message: 'Test Actor wants to call the tool mail_send with {"to":"ada@x","body":"hi"}. Approve this call?',
        requestedSchema: {
          type: 'object',
          properties: { approved: { type: 'boolean' }, reason: { type: 'string', maxLength: 2000 } },
          required: ['approved'],
        },
      },
      expect.objectContaining({ message: expect.stringContaining('"to":"bob@x"') }),
    ]);
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('Sent to Ada; Bob was refused.');
    expect(result.structuredContent).toMatchObject({ status: 'completed', session_id: 's-1' });
    expect(sent).toEqual(['ada@x']);
    expect(toolMessagesSent()).toEqual([
      expect.objectContaining({ tool_call_id: 'call_a', content: JSON.stringify({ sent: 'ada@x' }) }),
      expect.objectContaining({
        tool_call_id: 'call_b',
        content: JSON.stringify({ error: 'A person denied this tool call: declined', code: 'approval_denied' }),
      }),
    ]);
    const { id } = result.structuredContent as { id: string };
    expect(await (await fetch(`${url}/agent/runs/${id}`)).json()).toMatchObject({ state: 'completed' });
    await client.close();
  });

  it('takes the answer to an elicitation while the actor drains, so the waiting call completes before it stops', async () => {
    sent.length = 0;
    const app = await createTestActor({ definition: mcpTestDefinition, env, tools: [sendEmail] });
    const served = await serveOnLoopback(app);
    let stopped: Promise<void> | undefined;
    try {
      model.reply(
        { kind: 'json', body: completion(null, { toolCalls: [mailCall('call_z', 'zoe@x')] }) },
        { kind: 'json', body: completion('Mailed Zoe.') },
      );
      const { client } = await connectElicitingClient(served.url, () => {
        stopped = app.actor.shutdown({ graceMs: 5_000 });
        return { action: 'accept', content: { approved: true } };
      });
      const result = await client.callTool({ name: 'chat', arguments: { message: 'Mail Zoe' } });
      expect(stopped).toBeDefined();
      expect(textOf(result)).toBe('Mailed Zoe.');
      expect(sent).toEqual(['zoe@x']);
      // Anything but an answer is refused while it drains.
      const refused = await client.listTools().then(
        () => 'answered',
        (error: Error) => error.message,
      );
      expect(refused).toContain('draining');
      await client.close();
    } finally {
      await stopped;
      await served.close();
    }
  });

  it('counts a cancelled elicitation as denied, and an accepted denial keeps its reason', async () => {
    const url = await serveMcpActor();
    model.reply(
      { kind: 'json', body: completion(null, { toolCalls: [mailCall('call_c', 'cy@x'), mailCall('call_d', 'di@x')] }) },
      { kind: 'json', body: completion('Nothing sent.') },
    );
    const { client } = await connectElicitingClient(url, (request) =>
      request.params.message.includes('cy@x')
        ? { action: 'cancel' }
        : { action: 'accept', content: { approved: false, reason: 'not today' } },
    );
    const result = await client.callTool({ name: 'chat', arguments: { message: 'Mail Cy and Di' } });
    expect(textOf(result)).toBe('Nothing sent.');
    expect(sent).toEqual([]);
    expect(toolMessagesSent().map((message) => JSON.parse(message.content).error)).toEqual([
      'A person denied this tool call: cancelled',
      'A person denied this tool call: not today',
    ]);
    await client.close();
  });

  it('gives the pending approvals to an eliciting client that answers with an error, which answers them with chat', async () => {
    const url = await serveMcpActor();
    model.reply(
      { kind: 'json', body: completion(null, { toolCalls: [mailCall('call_h', 'hal@x')] }) },
      { kind: 'json', body: completion('Mailed Hal.') },
    );
    const { client, asked } = await connectElicitingClient(url, () => {
      throw new Error('no person here');
    });
    const paused = await client.callTool({ name: 'chat', arguments: { message: 'Mail Hal', session_id: 's-4' } });
    expect(asked).toHaveLength(1);
    const waiting = paused.structuredContent as { status: string; approvals: { id: string }[] };
    expect(waiting).toMatchObject({ status: 'awaiting_input', approvals: [pendingMail('call_h', 'hal@x')] });
    expect(sent).toEqual([]);
    const done = await client.callTool({
      name: 'chat',
      arguments: { session_id: 's-4', approvals: [{ id: waiting.approvals[0]?.id, approved: true }] },
    });
    expect(textOf(done)).toBe('Mailed Hal.');
    expect(sent).toEqual(['hal@x']);
    await client.close();
  });

  it('gives a client without elicitation the pending approvals, which it answers by calling chat with approvals', async () => {
    const url = await serveMcpActor();
    model.reply(
      {
        kind: 'json',
        body: completion(null, { toolCalls: [mailCall('call_e', 'eve@x'), mailCall('call_f', 'fay@x')] }),
      },
      { kind: 'json', body: completion('Mailed Eve, not Fay.') },
    );
    const client = await connectMcpClient(url);
    const paused = await client.callTool({
      name: 'chat',
      arguments: { message: 'Mail Eve and Fay', session_id: 's-2' },
    });
    expect(paused.isError).toBeFalsy();
    const waiting = paused.structuredContent as { run_id: string; approvals: { id: string }[] };
    expect(waiting).toEqual({
      status: 'awaiting_input',
      run_id: expect.any(String),
      session_id: 's-2',
      approvals: [pendingMail('call_e', 'eve@x'), pendingMail('call_f', 'fay@x')],
    });
    expect(textOf(paused)).toContain(`The run ${waiting.run_id} waits for a person to approve or deny 2 tool calls`);
    expect(textOf(paused)).toContain('calling chat again with {"session_id": "s-2", "approvals": [');
    expect(await (await fetch(`${url}/agent/runs/${waiting.run_id}`)).json()).toMatchObject({
      state: 'awaiting_input',
    });
    const [eve, fay] = waiting.approvals as [{ id: string }, { id: string }];

    // One answer first: the run waits for the other, which the result still lists.
    const half = await client.callTool({
      name: 'chat',
      arguments: { session_id: 's-2', approvals: [{ id: eve.id, approved: true }] },
    });
    expect(half.structuredContent).toMatchObject({
      status: 'awaiting_input',
      run_id: waiting.run_id,
      approvals: [{ id: fay.id }],
    });
    expect(sent).toEqual([]);

    const done = await client.callTool({
      name: 'chat',
      arguments: { session_id: 's-2', approvals: [{ id: fay.id, approved: false, reason: 'no' }] },
    });
    expect(textOf(done)).toBe('Mailed Eve, not Fay.');
    expect(done.structuredContent).toMatchObject({ id: waiting.run_id, status: 'completed' });
    expect(sent).toEqual(['eve@x']);
    expect(toolMessagesSent().map((message) => message.tool_call_id)).toEqual(['call_e', 'call_f']);
    expect(await (await fetch(`${url}/agent/runs/${waiting.run_id}`)).json()).toMatchObject({ state: 'completed' });
    await client.close();
  });

  it('answers bad approvals with isError naming each pointer, and an unknown approval id with approval_not_found', async () => {
    const url = await serveMcpActor();
    model.reply({ kind: 'json', body: completion(null, { toolCalls: [mailCall('call_g', 'gus@x')] }) });
    const client = await connectMcpClient(url);
    await client.callTool({ name: 'chat', arguments: { message: 'Mail Gus', session_id: 's-3' } });
    const bad = await client.callTool({
      name: 'chat',
      arguments: { session_id: 's-3', approvals: [{ id: 'apr_x', approved: 'yes' }, { approved: true }] },
    });
    expect(bad).toMatchObject({ isError: true });
    expect(textOf(bad)).toBe(
      'Invalid arguments for tool chat: /approvals/0/approved must be true or false; /approvals/1/id is required',
    );
    const empty = await client.callTool({ name: 'chat', arguments: { session_id: 's-3', approvals: [] } });
    expect(textOf(empty)).toBe('Invalid arguments for tool chat: /approvals must hold at least one answer');
    const unknown = await client.callTool({
      name: 'chat',
      arguments: { session_id: 's-3', approvals: [{ id: 'apr_nope', approved: true }] },
    });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toMatch(/^Approval not found: .*\(approval_not_found\)$/);
    expect(sent).toEqual([]);
    await client.close();
  });
});

describe('the example of docs/surfaces.md', () => {
  it('runs both paths against an actor: elicitation asks and denies the stranger; without it, chat with approvals does', async () => {
    const example = docExamples(REPOSITORY_ROOT, 'docs/surfaces.md').find(
      (block) => block.lang === 'ts' && block.code.includes('connectApprovingClient'),
    );
    if (example === undefined) throw new Error('docs/surfaces.md lost its approvals example');
    const folder = join(REPOSITORY_ROOT, '.actorkit');
    mkdirSync(folder, { recursive: true });
    const file = join(folder, `surfaces-approvals-${crypto.randomUUID()}.ts`);
    writeFileSync(file, example.code);
    try {
      const { connectApprovingClient, chatAnsweringApprovals } = (await import(file)) as {
        connectApprovingClient(baseUrl: string): Promise<Client>;
        chatAnsweringApprovals(client: Client, message: string, sessionId: string): Promise<string>;
      };
      const url = await serveMcpActor();
      const twoMails = () => ({
        kind: 'json' as const,
        body: completion(null, { toolCalls: [mailCall('call_1', 'ada@x'), mailCall('call_2', 'stranger@x')] }),
      });
      model.reply(twoMails(), { kind: 'json', body: completion('Ada only.') });
      const approving = await connectApprovingClient(url);
      const result = await approving.callTool({ name: 'chat', arguments: { message: 'Mail both' } });
      expect(textOf(result)).toBe('Ada only.');
      expect(toolMessagesSent().map((message) => JSON.parse(message.content))).toEqual([
        { sent: 'ada@x' },
        { error: 'A person denied this tool call: not to strangers', code: 'approval_denied' },
      ]);
      await approving.close();

      model.reply(twoMails(), { kind: 'json', body: completion('Ada again.') });
      const plain = await connectMcpClient(url);
      expect(await chatAnsweringApprovals(plain, 'Mail both again', 's-doc')).toBe('Ada again.');
      expect(sent).toEqual(['ada@x', 'ada@x']);
      await plain.close();
    } finally {
      rmSync(file, { force: true });
    }
  });
});
