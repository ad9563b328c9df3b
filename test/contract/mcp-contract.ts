import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, expect, it } from 'vitest';

/** What the MCP contract needs to know of the actor under test. */
export interface McpContractTarget {
  /** `http://127.0.0.1:<port>` of an actor with `expose_mcp` on, serving the offline model. */
  readonly baseUrl: string;
  /** The actor's read-only domain tool, called with `{topic}`. */
  readonly domainTool: string;
}

type Json = Record<string, unknown>;

/** An SDK client connected to `/mcp`, sending `headers` on every request. */
export async function connectMcpClient(baseUrl: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'actorkit-mcp-contract', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers } }));
  return client;
}

/** The JSON-RPC error a promise rejects with (an `McpError` from the SDK client). */
export async function rejectionOf(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

const resourceJson = async (client: Client, uri: string): Promise<Json> => {
  const { contents } = await client.readResource({ uri });
  expect(contents).toHaveLength(1);
  expect(contents[0]).toMatchObject({ uri, mimeType: 'application/json' });
  return JSON.parse(String((contents[0] as { text: string }).text)) as Json;
};

/** The text a tool result carries (its text content parts, joined). */
const textOf = (result: Awaited<ReturnType<Client['callTool']>>): string =>
  (result.content as { type: string; text?: string }[]).map((part) => (part.type === 'text' ? part.text : '')).join('');

const statsOf = async (baseUrl: string, tenant: string): Promise<Json> =>
  (await fetch(`${baseUrl}/stats/${tenant}`)).json() as Promise<Json>;

/**
 * The MCP contract of an actor with `expose_mcp` on, through the official SDK client over real
 * HTTP: tools, a two-turn chat that sees its history, the read-only domain tool, the three
 * resources, `/stats` counting the chats, and the JSON-RPC errors of bad input. Each run uses a
 * tenant of its own, so its counts start at zero.
 * @param target the actor, read when the tests run
 */
export function mcpContractSuite(target: () => McpContractTarget): void {
  const tenant = `mcp-contract-${crypto.randomUUID().slice(0, 8)}`;
  let client: Client;

  beforeAll(async () => {
    client = await connectMcpClient(target().baseUrl, { 'X-Tenant-Id': tenant });
  });

  afterAll(async () => {
    await client?.close();
  });

  it('lists the tool chat and the read-only domain tool, with their JSON Schemas', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get('chat')).toMatchObject({
      inputSchema: {
        type: 'object',
        properties: {
          message: { type: 'string' },
          approvals: { type: 'array', items: { type: 'object', required: ['id', 'approved'] } },
          session_id: { type: 'string' },
          user_identifier: { type: 'string' },
        },
      },
      annotations: { readOnlyHint: false },
    });
    expect(byName.get(target().domainTool)).toMatchObject({
      inputSchema: { type: 'object', properties: { topic: { type: 'string' } } },
      annotations: { readOnlyHint: true },
    });
    expect(tools.every((tool) => tool.name === 'chat' || tool.annotations?.readOnlyHint === true)).toBe(true);
  });

  it('chats twice in one session: the second turn sees the first', async () => {
    const first = await client.callTool({ name: 'chat', arguments: { message: 'Remember the word heliotrope' } });
    const firstReply = first.structuredContent as Json;
    expect(firstReply).toMatchObject({ status: 'completed', model: 'offline', message: { role: 'assistant' } });
    expect((first.content as { type: string; text: string }[])[0]).toEqual({
      type: 'text',
      text: (firstReply.message as Json).content,
    });
    expect(first.isError).toBeFalsy();
    const second = await client.callTool({ name: 'chat', arguments: { message: 'What was the word?' } });
    const secondReply = second.structuredContent as Json;
    expect(secondReply.session_id).toBe(firstReply.session_id);
    expect((secondReply.message as Json).content).toContain('I can see 2 earlier messages');
  });

  it('calls the read-only domain tool directly', async () => {
    const result = await client.callTool({ name: target().domainTool, arguments: { topic: 'tides' } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ topic: 'tides', text: expect.stringContaining('tides') });
  });

  it('lists and reads actor://metadata, actor://health and actor://stats (the caller tenant)', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri).sort()).toEqual([
      'actor://health',
      'actor://metadata',
      'actor://stats',
    ]);
    const card = await resourceJson(client, 'actor://metadata');
    expect(card).toEqual(await (await fetch(`${target().baseUrl}/api/actor/metadata`)).json());
    expect(await resourceJson(client, 'actor://health')).toMatchObject({
      status: 'ok',
      checks: { database: { status: 'pass' } },
    });
    expect(await resourceJson(client, 'actor://stats')).toMatchObject({
      scope: 'tenant',
      tenant_id: tenant,
      invocations: 2,
      sessions: 1,
    });
  });

  it('/stats counts the chats under the X-Tenant-Id the client sent', async () => {
    expect(await statsOf(target().baseUrl, tenant)).toMatchObject({ invocations: 2, errors: 0, sessions: 1, users: 1 });
  });

  it('answers an unknown tool with JSON-RPC -32602', async () => {
    const error = await rejectionOf(client.callTool({ name: 'no_such_tool', arguments: {} }));
    expect(error.code).toBe(-32602);
    expect(error.message).toBe('MCP error -32602: Unknown tool: no_such_tool');
  });

  it('answers bad arguments with a tool result with isError naming each failing JSON pointer, so the model can correct them; counts nothing', async () => {
    const chat = await client.callTool({ name: 'chat', arguments: { message: '', colour: 'red' } });
    expect(chat.isError).toBe(true);
    expect(textOf(chat)).toContain('Invalid arguments for tool chat: ');
    expect(textOf(chat)).toContain('/message must not be empty');
    expect(textOf(chat)).toContain('/colour is not a known field');
    const missing = await client.callTool({ name: 'chat', arguments: { session_id: 'bad id!' } });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/\/message is required.*\/session_id/);
    const wrongType = await client.callTool({ name: 'chat', arguments: { message: 42 } });
    expect(wrongType).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: expect.stringContaining('/message') }],
    });
    const tool = await client.callTool({ name: target().domainTool, arguments: { topic: 42 } });
    expect(tool.isError).toBe(true);
    expect(textOf(tool)).toContain(`Invalid arguments for tool ${target().domainTool}: /topic`);
    expect(await statsOf(target().baseUrl, tenant)).toMatchObject({ invocations: 2, errors: 0 });
  });

  it('answers an unknown resource with -32002', async () => {
    const error = await rejectionOf(client.readResource({ uri: 'actor://settings' }));
    expect(error.code).toBe(-32002);
  });

  it('refuses a body over the body limit with 413 and a JSON-RPC error, and the session still works', async () => {
    const response = await fetch(`${target().baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { padding: 'x'.repeat(1_100_000) } }),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({
      jsonrpc: '2.0',
      error: { code: -32000, message: expect.stringContaining('BODY_LIMIT_BYTES') },
      id: null,
    });
    expect((await client.listResources()).resources).toHaveLength(3);
  });

  it('answers an Mcp-Session-Id it never issues with 404 and a JSON-RPC error', async () => {
    const response = await fetch(`${target().baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'Mcp-Session-Id': 'not a session id',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32001 } });
  });

  it('ends a session on DELETE, and the next initialize opens a session of another id', async () => {
    const other = await connectMcpClient(target().baseUrl);
    const transport = other.transport as StreamableHTTPClientTransport;
    const sessionId = transport.sessionId;
    expect(sessionId).toEqual(expect.any(String));
    await transport.terminateSession();
    expect(transport.sessionId).toBeUndefined();
    await other.close();
    const next = await connectMcpClient(target().baseUrl);
    expect((next.transport as StreamableHTTPClientTransport).sessionId).not.toBe(sessionId);
    await next.close();
  });
}
