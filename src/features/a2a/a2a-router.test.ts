import { TaskState, type StreamResponse } from '@a2a-js/sdk';
import { Validator } from '@cfworker/json-schema';
import { ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { send, userMessage } from '../../../test/support/a2a-messages.js';
import { testActorsForThisFile } from '../../../test/surfaces/loopback.js';
import { answerOf, slowChatHandler } from '../../../test/surfaces/slow-chat-handler.js';
import { ActorTool } from '../../agent/actor-tool.js';
import { buildPlatformConfig } from '../../config/emit/build-platform-config.js';
import { contractEndpoints } from '../../config/emit/contract-endpoints.js';
import { configDifferences } from '../../testing/config-consistency.js';
import { defaultActorFeatures, type ActorDefinition } from '../../core/actor-definition.js';
import { createTestActor, testActorDefinition } from '../../testing/create-test-actor.js';

const definition: ActorDefinition = {
  ...testActorDefinition,
  features: { ...defaultActorFeatures, exposeA2a: true },
};

const lookupTool = new ActorTool({
  name: 'test_lookup',
  description: 'Looks a topic up',
  readOnly: true,
  argsSchema: v.object({ topic: v.string() }),
  run: ({ topic }) => ({ topic }),
});

/** Serves the test actor with `expose_a2a` on, on loopback; resolves with its base URL. */
const serveA2aActor = testActorsForThisFile({ definition, tools: [lookupTool] });

/** A JSON-RPC call of `/a2a` as raw HTTP. */
async function rpc(url: string, body: unknown, headers: Record<string, string> = { 'A2A-Version': '1.0' }) {
  const response = await fetch(`${url}/a2a`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return {
    status: response.status,
    body: (await response.json()) as { error?: { code: number; message: string }; result?: unknown },
  };
}

describe('A2A through the official @a2a-js/sdk client (issue #39)', () => {
  it('resolves the card, sends a message and gets its task', async () => {
    const url = await serveA2aActor();
    const client = await new ClientFactory().createFromUrl(url);
    const card = await client.getAgentCard();
    expect(card.name).toBe(testActorDefinition.metadata.name);
    expect(card.skills.map((skill) => skill.id)).toEqual(['chat', 'test_lookup']);
    // The domain `test` is one of the actor's tags too: each tag once.
    expect(card.skills.map((skill) => skill.tags)).toEqual([
      ['test', 'chat'],
      ['test', 'read-only'],
    ]);
    expect(card.capabilities?.streaming).toBe(true);
    expect(card.supportedInterfaces[0]).toMatchObject({
      url: `${url}/a2a`,
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
    });

    const result = await client.sendMessage(send(userMessage('hello there', { contextId: 'ctx-1' })));
    expect('id' in result).toBe(true);
    const task = result as Extract<typeof result, { id: string }>;
    expect(task.contextId).toBe('ctx-1');
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const text = task.artifacts[0]?.parts[0]?.content;
    expect(text?.$case).toBe('text');

    // The same Idempotency-Key again replays the task of the first message, as an invoke replays.
    const keyed = { serviceParameters: { 'Idempotency-Key': 'k-a2a-1' } };
    const first = (await client.sendMessage(send(userMessage('once', { contextId: 'ctx-1' })), keyed)) as {
      id: string;
    };
    const replayed = (await client.sendMessage(send(userMessage('once', { contextId: 'ctx-1' })), keyed)) as {
      id: string;
    };
    expect(replayed.id).toBe(first.id);
    const again = await client.getTask({ tenant: '', id: task.id });
    expect(again).toMatchObject({ id: task.id, contextId: 'ctx-1', status: { state: TaskState.TASK_STATE_COMPLETED } });
  });

  it('streams a message: the task, its text as artifact updates, then completed', async () => {
    const words = ['one', 'two', 'three'];
    const url = await serveA2aActor({ chatHandler: slowChatHandler(words, 10) });
    const client = await new ClientFactory().createFromUrl(url);
    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(send(userMessage('count')))) events.push(event);
    expect(events[0]?.payload?.$case).toBe('task');
    const text = events
      .flatMap((event) =>
        event.payload?.$case === 'artifactUpdate' ? (event.payload.value.artifact?.parts ?? []) : [],
      )
      .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
      .join('');
    expect(text).toBe(answerOf(words));
    const last = events.at(-1)?.payload;
    expect(last?.$case).toBe('statusUpdate');
    if (last?.$case === 'statusUpdate') expect(last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('cancels a task in progress; a finished one is not cancelable', async () => {
    const handler = slowChatHandler(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'], 200);
    const url = await serveA2aActor({ chatHandler: handler });
    const client = await new ClientFactory().createFromUrl(url);
    const started = await client.sendMessage(send(userMessage('slow'), true));
    const task = started as Extract<typeof started, { id: string }>;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    const cancelled = await client.cancelTask({ tenant: '', id: task.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(handler.aborted()).toBe(true);
    await expect(client.cancelTask({ tenant: '', id: task.id, metadata: undefined })).resolves.toMatchObject({
      status: { state: TaskState.TASK_STATE_CANCELED },
    });
    const done = await client.sendMessage(send(userMessage('quick')));
    await expect(
      client.cancelTask({ tenant: '', id: (done as { id: string }).id, metadata: undefined }),
    ).rejects.toMatchObject({ name: 'TaskNotCancelableError' });
  });
});

describe('A2A over HTTP+JSON through the @a2a-js/sdk client (issue #39)', () => {
  it('sends, streams, gets and cancels with the REST transport', async () => {
    const handler = slowChatHandler(['a', 'b', 'c', 'd', 'e', 'f'], 150);
    const url = await serveA2aActor({ chatHandler: handler });
    const client = await new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: ['HTTP+JSON'] }),
    ).createFromUrl(url);
    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(send(userMessage('stream it')))) events.push(event);
    expect(events[0]?.payload?.$case).toBe('task');
    const last = events.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const started = (await client.sendMessage(send(userMessage('slow'), true))) as { id: string };
    expect(await client.getTask({ tenant: '', id: started.id })).toMatchObject({ id: started.id });
    const cancelled = await client.cancelTask({ tenant: '', id: started.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await expect(client.getTask({ tenant: '', id: 'inv_nope' })).rejects.toMatchObject({ name: 'TaskNotFoundError' });
    const listed = await client.listTasks({
      tenant: '',
      contextId: '',
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageToken: '',
      statusTimestampAfter: undefined,
      pageSize: 1,
    });
    expect(listed.tasks.map((task) => task.id)).toEqual([started.id]);
    const next = await client.listTasks({
      tenant: '',
      contextId: '',
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageToken: listed.nextPageToken,
      statusTimestampAfter: undefined,
      pageSize: 1,
    });
    expect(next.tasks).toHaveLength(1);
    expect(next.tasks[0]?.id).not.toBe(started.id);
  });

  it('answers its errors with the spec body, which is also a problem document', async () => {
    const url = await serveA2aActor();
    const response = await fetch(`${url}/a2a/tasks/inv_nope`, { headers: { 'A2A-Version': '1.0' } });
    expect(response.status).toBe(404);
    expect(response.headers.get('Content-Type')).toBe('application/problem+json');
    expect(await response.json()).toMatchObject({
      status: 404,
      code: 'TaskNotFoundError',
      error: { code: 404, status: 'NOT_FOUND', details: [expect.objectContaining({ reason: 'TASK_NOT_FOUND' })] },
    });
    const unversioned = await fetch(`${url}/a2a/tasks/inv_nope`);
    expect(unversioned.status).toBe(400);
    const data = await fetch(`${url}/a2a/message:send`, {
      method: 'POST',
      headers: { 'A2A-Version': '1.0', 'Content-Type': 'application/json' },
      body: JSON.stringify({ message: { messageId: 'm', role: 'ROLE_USER', parts: [{ data: { a: 1 } }] } }),
    });
    expect((await data.json()) as object).toMatchObject({
      error: { details: [expect.objectContaining({ reason: 'CONTENT_TYPE_NOT_SUPPORTED' })] },
    });
    const notJson = await fetch(`${url}/a2a/message:send`, {
      method: 'POST',
      headers: { 'A2A-Version': '1.0' },
      body: '{x',
    });
    expect(notJson.status).toBe(400);
    // JSON that is not an object (the SDK's decoder would read fields of `null`: it was a 500).
    for (const body of ['null', '5', '"text"', '[]']) {
      const notObject = await fetch(`${url}/a2a/message:send`, {
        method: 'POST',
        headers: { 'A2A-Version': '1.0', 'Content-Type': 'application/json' },
        body,
      });
      expect(notObject.status, body).toBe(400);
      expect((await notObject.json()) as object).toMatchObject({ error: { status: 'INVALID_ARGUMENT' } });
    }
  });
});

describe('SubscribeToTask (A2A 1.0, 3.1.6) through the @a2a-js/sdk client', () => {
  const words = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight'];
  const textOf = (parts: readonly { content?: { $case: string; value: unknown } }[] = []) =>
    parts.map((part) => (part.content?.$case === 'text' ? String(part.content.value) : '')).join('');

  for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
    it(`opens with the task as it is, its text so far, then only the updates after, over ${binding}`, async () => {
      const url = await serveA2aActor({ chatHandler: slowChatHandler(words, 150) });
      const client = await new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [binding] }),
      ).createFromUrl(url);
      let taskId = '';
      let updatesSeen = 0;
      for await (const event of client.sendMessageStream(send(userMessage('follow me')))) {
        if (event.payload?.$case === 'task') taskId = event.payload.value.id;
        if (event.payload?.$case === 'artifactUpdate' && ++updatesSeen === 2) break;
      }
      const events: StreamResponse[] = [];
      for await (const event of client.resubscribeTask({ tenant: '', id: taskId })) events.push(event);
      const [first, ...rest] = events.map((event) => event.payload);
      expect(first?.$case).toBe('task');
      const task = first?.$case === 'task' ? first.value : undefined;
      expect(task).toMatchObject({ id: taskId, status: { state: TaskState.TASK_STATE_WORKING } });
      // The text so far is the opening task's artifact; it starts with the two words the stream showed.
      const soFar = textOf(task?.artifacts[0]?.parts);
      expect(soFar.startsWith(answerOf(words.slice(0, 2)))).toBe(true);
      expect(soFar).not.toBe(answerOf(words));
      expect(rest.some((payload) => payload?.$case === 'task')).toBe(false);
      const updates = rest.flatMap((payload) => (payload?.$case === 'artifactUpdate' ? [payload.value] : []));
      expect(updates.length).toBeGreaterThan(0);
      expect(updates.every((update) => update.append && update.artifact?.artifactId === 'reply')).toBe(true);
      // The artifact a client builds from the task and the updates holds each word exactly once.
      expect(soFar + updates.map((update) => textOf(update.artifact?.parts)).join('')).toBe(answerOf(words));
      const last = rest.at(-1);
      expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

      // A task that ended is not subscribed to (UnsupportedOperation, as the spec says); an unknown one is not found.
      const drain = async (id: string) => {
        for await (const _ of client.resubscribeTask({ tenant: '', id }));
      };
      await expect(drain(taskId)).rejects.toMatchObject({ name: 'UnsupportedOperationError' });
      await expect(drain('inv_nope')).rejects.toMatchObject({ name: 'TaskNotFoundError' });
    });
  }
});

describe('the documented task path is the one the server takes (HTTP+JSON)', () => {
  it('refuses with 400 exactly the task paths its pattern refuses, for GET and for POST', async () => {
    const url = await serveA2aActor();
    type Operation = { parameters: { name: string; schema: { pattern: string } }[] };
    const document = (await (await fetch(`${url}/openapi.json`)).json()) as {
      paths: Record<string, Record<'get' | 'post', Operation>>;
    };
    const samples = ['inv_nope', 'inv_nope:cancel', 'inv_nope:subscribe', ' x', '%0D', ':cancel', 'a:b', 'a:cancel:x'];
    for (const method of ['get', 'post'] as const) {
      const task = document.paths['/a2a/tasks/{task}']?.[method].parameters.find((p) => p.name === 'task');
      const pattern = new RegExp(task?.schema.pattern ?? '');
      for (const sample of samples) {
        const response = await fetch(`${url}/a2a/tasks/${sample}`, {
          method: method.toUpperCase(),
          headers: { 'A2A-Version': '1.0' },
          signal: AbortSignal.timeout(2_000),
        }).catch(() => null);
        // An allowed path reaches the task (404: no such task); a refused one is a 400.
        const status = response?.status;
        await response?.body?.cancel();
        expect(status, `${method} ${sample}`).toBe(pattern.test(decodeURIComponent(sample)) ? 404 : 400);
      }
    }
  });
});

describe('A2A bad input gets the spec’s errors, never a 500', () => {
  it('answers each with its JSON-RPC error', async () => {
    const url = await serveA2aActor();
    const message = { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] };
    // Not JSON, not JSON-RPC, an unknown method, malformed params.
    expect((await rpc(url, '{nope')).body.error?.code).toBe(-32700);
    expect((await rpc(url, { jsonrpc: '1.0', id: 1, method: 'SendMessage' })).body.error?.code).toBe(-32602);
    expect((await rpc(url, { jsonrpc: '2.0', id: 2, method: 'Nope', params: {} })).body.error?.code).toBe(-32601);
    expect((await rpc(url, { jsonrpc: '2.0', id: 3, method: 'SendMessage', params: [] })).body.error?.code).toBe(
      -32602,
    );
    expect(
      (await rpc(url, { jsonrpc: '2.0', id: 4, method: 'SendMessage', params: { message: { ...message, parts: [] } } }))
        .body.error?.code,
    ).toBe(-32602);
    // No A2A-Version (0.3) and an unknown one.
    expect(
      (await rpc(url, { jsonrpc: '2.0', id: 5, method: 'GetTask', params: { id: 'x' } }, {})).body.error?.code,
    ).toBe(-32009);
    expect(
      (await rpc(url, { jsonrpc: '2.0', id: 6, method: 'GetTask', params: { id: 'x' } }, { 'A2A-Version': '9.9' })).body
        .error?.code,
    ).toBe(-32009);
    // An unsupported part, and an attachment type the model cannot take.
    const data = { ...message, parts: [{ data: { a: 1 } }] };
    expect(
      (await rpc(url, { jsonrpc: '2.0', id: 7, method: 'SendMessage', params: { message: data } })).body.error?.code,
    ).toBe(-32005);
    const pdf = {
      ...message,
      parts: [{ url: 'https://example.com/a.pdf', mediaType: 'application/pdf', filename: 'a.pdf' }],
    };
    expect(
      (await rpc(url, { jsonrpc: '2.0', id: 8, method: 'SendMessage', params: { message: pdf } })).body.error?.code,
    ).toBe(-32005);
    // An oversized message: over the chat request's 32768 characters, and over BODY_LIMIT_BYTES.
    const long = { ...message, parts: [{ text: 'x'.repeat(40_000) }] };
    expect(
      (await rpc(url, { jsonrpc: '2.0', id: 9, method: 'SendMessage', params: { message: long } })).body.error?.code,
    ).toBe(-32602);
    const huge = await fetch(`${url}/a2a`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 10,
        method: 'SendMessage',
        params: { message: { ...message, parts: [{ text: 'x'.repeat(2_000_000) }] } },
      }),
    });
    expect(huge.status).toBe(413);
    // Unknown tasks; listing and push notifications are not offered.
    expect(
      (await rpc(url, { jsonrpc: '2.0', id: 11, method: 'GetTask', params: { id: 'inv_nope' } })).body.error?.code,
    ).toBe(-32001);
    expect(
      (await rpc(url, { jsonrpc: '2.0', id: 12, method: 'CancelTask', params: { id: 'inv_nope' } })).body.error?.code,
    ).toBe(-32001);
    expect(
      (await rpc(url, { jsonrpc: '2.0', id: 13, method: 'ListTasks', params: { pageSize: 1000 } })).body.error?.code,
    ).toBe(-32602);
    expect(
      (
        await rpc(url, {
          jsonrpc: '2.0',
          id: 14,
          method: 'CreateTaskPushNotificationConfig',
          params: { taskId: 'x', url: 'https://x' },
        })
      ).body.error?.code,
    ).toBe(-32003);
  });

  it("keeps a tenant's tasks from another tenant: not found", async () => {
    const url = await serveA2aActor();
    const message = { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] };
    const sent = await rpc(
      url,
      { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } },
      { 'A2A-Version': '1.0', 'X-Tenant-Id': 'acme' },
    );
    const id = (sent.body.result as { task: { id: string } }).task.id;
    const own = await rpc(
      url,
      { jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id } },
      { 'A2A-Version': '1.0', 'X-Tenant-Id': 'acme' },
    );
    expect((own.body.result as { id: string }).id).toBe(id);
    const acme = { 'A2A-Version': '1.0', 'X-Tenant-Id': 'acme' };
    const listed = await rpc(url, { jsonrpc: '2.0', id: 4, method: 'ListTasks', params: {} }, acme);
    expect((listed.body.result as { tasks: { id: string }[] }).tasks.map((task) => task.id)).toEqual([id]);
    const elsewhere = await rpc(
      url,
      { jsonrpc: '2.0', id: 5, method: 'ListTasks', params: {} },
      { 'A2A-Version': '1.0', 'X-Tenant-Id': 'globex' },
    );
    expect((elsewhere.body.result as { tasks?: unknown[] }).tasks ?? []).toEqual([]);
    // A tenant in the params does not switch the tenant: X-Tenant-Id alone says it.
    for (const headers of [{ 'X-Tenant-Id': 'globex' }, {}] as Record<string, string>[])
      expect(
        (
          await rpc(
            url,
            { jsonrpc: '2.0', id: 3, method: 'GetTask', params: { id, tenant: 'acme' } },
            { 'A2A-Version': '1.0', ...headers },
          )
        ).body.error?.code,
      ).toBe(-32001);
  });
});

describe('the A2A neighbours', () => {
  it('config.json lists the routes the app serves, the card public and /a2a behind the key', async () => {
    const endpoints = contractEndpoints(definition).filter((endpoint) => endpoint.presence === 'conditional');
    expect(endpoints.map((endpoint) => `${endpoint.method} ${endpoint.path}`)).toEqual([
      'GET /.well-known/agent-card.json',
      'POST /a2a',
      'POST /a2a/message:send',
      'POST /a2a/message:stream',
      'GET /a2a/tasks',
      'GET /a2a/tasks/{task}',
      'POST /a2a/tasks/{task}',
    ]);
    const app = await createTestActor({
      definition,
      tools: [lookupTool],
      env: { API_KEY_ENABLED: 'true', API_KEY: 'k-1' },
    });
    expect(
      await configDifferences(
        app,
        buildPlatformConfig({
          definition,
          packageJson: { actorkit: { deployment: { image_repo: 'ghcr.io/acme/a2a' } } },
        }),
      ),
    ).toEqual([]);
    const card = (await (await app.request('/.well-known/agent-card.json')).json()) as Record<string, unknown>;
    expect(card.securitySchemes).toEqual({
      apiKey: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key', description: 'The actor API key' } },
    });
    expect((card.skills as { id: string }[]).map((skill) => skill.id)).toEqual(['chat', lookupTool.name]);
    expect((await app.request('/a2a', { method: 'POST', body: '{}' })).status).toBe(401);
    const document = (await (await app.request('/openapi.json')).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/.well-known/agent-card.json', '/a2a', '/a2a/message:send', '/a2a/tasks/{task}']),
    );
    expect((await app.request('/a2a/tasks/x', { headers: { 'A2A-Version': '1.0' } })).status).toBe(401);
  });
});

describe('the documented SendMessage body is the one the server takes (issue #40)', () => {
  const message = { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] };
  const image = { url: 'https://example.com/cat.png', mediaType: 'image/png', filename: 'cat.png' };
  /** Bodies on both sides of the document's rules, each with its answer: a status, or the A2A error of a 400. */
  type Answer = 200 | 404 | 'RequestMalformedError' | 'ContentTypeNotSupportedError';
  const bodies: [string, unknown, Answer][] = [
    ['a text message', { message }, 200],
    ['text and an image by url', { message: { ...message, parts: [{ text: 'Look' }, image] } }, 200],
    [
      'text as raw bytes',
      { message: { ...message, parts: [{ text: 'Read' }, { raw: btoa('notes'), mediaType: 'text/plain' }] } },
      200,
    ],
    [
      'configuration and metadata',
      { message, configuration: { returnImmediately: false, historyLength: 0 }, metadata: {} },
      200,
    ],
    ['a task that does not exist', { message: { ...message, taskId: 'inv_nope' } }, 404],
    ['no message', {}, 'RequestMalformedError'],
    ['a number for messageId', { message: { ...message, messageId: 5 } }, 'RequestMalformedError'],
    ['the agent role', { message: { ...message, role: 'ROLE_AGENT' } }, 'RequestMalformedError'],
    ['no parts', { message: { ...message, parts: [] } }, 'RequestMalformedError'],
    ['only empty text', { message: { ...message, parts: [{ text: '' }, { text: '' }] } }, 'RequestMalformedError'],
    [
      'a part with text and a url',
      { message: { ...message, parts: [{ text: 'a', ...image }] } },
      'RequestMalformedError',
    ],
    ['a blank taskId', { message: { ...message, taskId: ' ' } }, 'RequestMalformedError'],
    ['a contextId that is not a session id', { message: { ...message, contextId: 'a b' } }, 'RequestMalformedError'],
    ['an array for configuration', { message, configuration: [] }, 'RequestMalformedError'],
    ['an array for metadata', { message: { ...message, metadata: [] } }, 'RequestMalformedError'],
    [
      'a url without a host',
      { message: { ...message, parts: [{ text: 'a' }, { ...image, url: 'HTTP://' }] } },
      'RequestMalformedError',
    ],
    [
      'a url with user:password@',
      { message: { ...message, parts: [{ text: 'a' }, { ...image, url: 'https://u:p@example.com/a.png' }] } },
      'RequestMalformedError',
    ],
    [
      'a data part without a task',
      { message: { ...message, parts: [{ text: 'a' }, { data: { approved: true } }] } },
      'ContentTypeNotSupportedError',
    ],
    [
      'a pdf',
      { message: { ...message, parts: [{ text: 'a' }, { ...image, mediaType: 'application/pdf' }] } },
      'ContentTypeNotSupportedError',
    ],
    [
      'text by url',
      { message: { ...message, parts: [{ text: 'a' }, { ...image, mediaType: 'text/plain' }] } },
      'ContentTypeNotSupportedError',
    ],
  ];

  it('accepts the bodies its schema admits and refuses the others, over HTTP+JSON and JSON-RPC', async () => {
    const url = await serveA2aActor();
    const document = (await (await fetch(`${url}/openapi.json`)).json()) as {
      paths: Record<string, { post: { requestBody: { content: { 'application/json': { schema: object } } } } }>;
    };
    const schema = document.paths['/a2a/message:send']?.post.requestBody.content['application/json'].schema;
    const validator = new Validator(schema as never, '2020-12');
    const rpcCodes = {
      200: undefined,
      404: -32001,
      RequestMalformedError: -32602,
      ContentTypeNotSupportedError: -32005,
    };
    for (const [name, body, answer] of bodies) {
      expect(validator.validate(body).valid, name).toBe(answer === 200 || answer === 404);
      const response = await fetch(`${url}/a2a/message:send`, {
        method: 'POST',
        headers: { 'A2A-Version': '1.0', 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(response.status, name).toBe(typeof answer === 'number' ? answer : 400);
      const refusal = typeof answer === 'number' ? undefined : ((await response.json()) as { code: string }).code;
      if (refusal === undefined) await response.body?.cancel();
      expect(refusal, name).toBe(typeof answer === 'number' ? undefined : answer);
      const rpcAnswer = await rpc(url, { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: body });
      expect(rpcAnswer.body.error?.code, name).toBe(rpcCodes[answer]);
    }
  });

  it('answers a JSON-RPC body that is not one object with 400 and -32600', async () => {
    const url = await serveA2aActor();
    for (const body of ['[null, null]', '[]', 'null', '5']) {
      const answer = await rpc(url, body, {});
      expect(answer.status, body).toBe(400);
      expect(answer.body.error?.code, body).toBe(-32600);
    }
  });
});
