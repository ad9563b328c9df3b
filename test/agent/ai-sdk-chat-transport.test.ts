import { DefaultChatTransport, isTextUIPart, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActorTool } from '../../src/agent/actor-tool.js';
import type { ServeHandle } from '../../src/adapter/node/index.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { createTestActor } from '../../src/testing/create-test-actor.js';
import { serveOnLoopback } from '../surfaces/loopback.js';
import { PlainChat } from './plain-chat.js';

// Issue #29 item 4: the AI SDK's own client, `DefaultChatTransport` with no options but its
// `api`, against a running actor (Node adapter, real HTTP), as `useChat` drives it.

const textOf = (message: UIMessage | undefined) =>
  (message?.parts ?? [])
    .filter(isTextUIPart)
    .map((part) => part.text)
    .join('');

let store: MemoryStore;
let server: ServeHandle;
let keyed: ServeHandle;
beforeAll(async () => {
  store = new MemoryStore();
  const greet = new ActorTool({
    name: 'hello_greet',
    description: 'Greets a person by name',
    argsSchema: v.object({ name: v.string() }),
    run: ({ name }) => `Hello, ${name}!`,
  });
  server = await serveOnLoopback(await createTestActor({ store, tools: [greet] }));
  keyed = await serveOnLoopback(await createTestActor({ env: { API_KEY_ENABLED: 'true', API_KEY: 'k-chat' } }));
});
afterAll(async () => {
  await server?.close();
  await keyed?.close();
});

describe("the AI SDK's DefaultChatTransport against POST /agent/invoke, no options but api", () => {
  it('streams the answer into a chat; the chat id is the session, so the second turn has the first in its history', async () => {
    const chat = new PlainChat({
      id: 'chat-ada',
      transport: new DefaultChatTransport({ api: `${server.url}/agent/invoke` }),
    });
    await chat.sendMessage({ text: 'My name is Ada.' });
    expect(chat.error).toBeUndefined();
    expect(chat.status).toBe('ready');
    expect(chat.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(textOf(chat.messages[1])).toContain('[offline model]');
    expect(textOf(chat.messages[1])).toContain('My name is Ada.');
    expect(chat.messages[1]!.parts).toContainEqual(
      expect.objectContaining({
        type: 'data-session',
        data: expect.objectContaining({ session_id: 'chat-ada', model: 'offline' }),
      }),
    );

    await chat.sendMessage({ text: 'What is my name?' });
    expect(chat.error).toBeUndefined();
    expect(textOf(chat.messages[3])).toContain('What is my name?');
    const history = await store.loadHistory('default', 'chat-ada', 10);
    expect(history.map((message) => [message.role, message.content.slice(0, 16)])).toEqual([
      ['user', 'My name is Ada.'],
      ['assistant', expect.stringContaining('[offline model]')],
      ['user', 'What is my name?'],
      ['assistant', expect.stringContaining('[offline model]')],
    ]);
    expect(await (await fetch(`${server.url}/stats`)).json()).toMatchObject({
      invocations: 2,
      sessions: 1,
      users: 1,
      errors: 0,
    });
  });

  it('shows a tool the agent ran as a dynamic-tool part with its input and output', async () => {
    const chat = new PlainChat({
      id: 'chat-tool',
      transport: new DefaultChatTransport({ api: `${server.url}/agent/invoke` }),
    });
    await chat.sendMessage({ text: 'use tool hello_greet with {"name": "Ada"}' });
    expect(chat.error).toBeUndefined();
    expect(chat.messages[1]!.parts).toContainEqual(
      expect.objectContaining({
        type: 'dynamic-tool',
        toolName: 'hello_greet',
        state: 'output-available',
        input: { name: 'Ada' },
        output: 'Hello, Ada!',
      }),
    );
  });

  it("sends the files of useChat's sendMessage as attachments the model receives", async () => {
    const chat = new PlainChat({
      id: 'chat-files',
      transport: new DefaultChatTransport({ api: `${server.url}/agent/invoke` }),
    });
    await chat.sendMessage({
      text: 'Read this',
      files: [
        { type: 'file', mediaType: 'text/plain', filename: 'notes.txt', url: 'data:text/plain;base64,QnV5IG1pbGsu' },
        { type: 'file', mediaType: 'image/png', filename: 'dot.png', url: 'https://images.example/dot.png' },
      ],
    });
    expect(chat.error).toBeUndefined();
    expect(textOf(chat.messages[1])).toContain('You attached 2 files: notes.txt (text/plain), dot.png (image/png).');
  });

  it('reads the stream chunk by chunk through sendMessages, each chunk valid for the AI SDK', async () => {
    const transport = new DefaultChatTransport({ api: `${server.url}/agent/invoke` });
    const user: UIMessage = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hello there' }] };
    const chunks: UIMessageChunk[] = [];
    const stream = await transport.sendMessages({
      chatId: 'chat-chunks',
      messages: [user],
      trigger: 'submit-message',
      messageId: undefined,
      abortSignal: undefined,
    });
    const [forChunks, forMessage] = stream.tee();
    for await (const chunk of forChunks as unknown as AsyncIterable<UIMessageChunk>) chunks.push(chunk);
    let assembled: UIMessage | undefined;
    for await (const message of readUIMessageStream({ stream: forMessage })) assembled = message;
    expect(chunks.map((chunk) => chunk.type).filter((type, at, types) => type !== types[at - 1])).toEqual([
      'start',
      'start-step',
      'text-start',
      'text-delta',
      'text-end',
      'finish-step',
      'data-usage',
      'data-session',
      'finish',
    ]);
    expect(textOf(assembled)).toContain('Hello there');
  });

  it('answers the same body with the chat reply as JSON when it says stream: false (the transport itself reads only streams)', async () => {
    const sent: string[] = [];
    const transport = new DefaultChatTransport({
      api: `${server.url}/agent/invoke`,
      fetch: async (input, init) => {
        sent.push(String(init?.body));
        return fetch(input, init);
      },
    });
    const chat = new PlainChat({ id: 'chat-json', transport });
    await chat.sendMessage({ text: 'Once as a stream' });
    const body = JSON.parse(sent[0]!) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['id', 'messages', 'trigger']);
    const response = await fetch(`${server.url}/agent/invoke`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...body, stream: false }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(await response.json()).toMatchObject({
      session_id: 'chat-json',
      message: { role: 'assistant', content: expect.stringContaining('Once as a stream') },
    });
  });

  it('shows a refused file type as the chat error, naming the part; a key goes in the transport headers', async () => {
    const refused = new PlainChat({
      id: 'chat-pdf',
      transport: new DefaultChatTransport({ api: `${server.url}/agent/invoke` }),
    });
    await refused.sendMessage({
      text: 'Summarise',
      files: [
        { type: 'file', mediaType: 'application/pdf', filename: 'a.pdf', url: 'data:application/pdf;base64,JVBERi0=' },
      ],
    });
    expect(refused.status).toBe('error');
    const problem = JSON.parse(refused.error!.message) as {
      status: number;
      code: string;
      errors: { pointer: string; detail: string }[];
    };
    expect(problem).toMatchObject({
      status: 422,
      code: 'validation_failed',
      errors: [{ pointer: '/messages/0/parts/0/mediaType', detail: expect.stringContaining('application/pdf') }],
    });

    const keyless = new PlainChat({
      id: 'chat-key',
      transport: new DefaultChatTransport({ api: `${keyed.url}/agent/invoke` }),
    });
    await keyless.sendMessage({ text: 'Hi' });
    expect(JSON.parse(keyless.error!.message)).toMatchObject({ status: 401 });
    const withKey = new PlainChat({
      id: 'chat-key',
      transport: new DefaultChatTransport({ api: `${keyed.url}/agent/invoke`, headers: { 'X-API-Key': 'k-chat' } }),
    });
    await withKey.sendMessage({ text: 'Hi' });
    expect(withKey.error).toBeUndefined();
    expect(textOf(withKey.messages[1])).toContain('[offline model]');
  });
});
