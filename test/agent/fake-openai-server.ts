import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeEach } from 'vitest';

/** What the fake server answers to one request. */
export type FakeReply =
  /** A JSON chat completion (or any JSON body) with a status. */
  | {
      readonly kind: 'json';
      readonly body: unknown;
      readonly status?: number;
      readonly headers?: Record<string, string>;
      /** Milliseconds to wait before answering (a model that thinks). */
      readonly delayMs?: number;
    }
  /** An SSE stream: each chunk is sent as `data: <json>` (strings are sent as they are), then `data: [DONE]`. */
  | {
      readonly kind: 'stream';
      readonly chunks: readonly unknown[];
      readonly done?: boolean;
      readonly hangAfter?: boolean;
    }
  /** Bytes exactly as given. */
  | { readonly kind: 'raw'; readonly status: number; readonly body: string; readonly contentType: string }
  /** Never answers (headers included) until the client goes away. */
  | { readonly kind: 'hang' }
  /** Sends the JSON headers, then never the body. */
  | { readonly kind: 'hang-body' };

/** One request the fake server saw. */
export interface SeenRequest {
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Record<string, any>;
}

/** A fake OpenAI-compatible server on loopback: real HTTP, scripted replies. */
export interface FakeOpenAIServer {
  /** The `/v1` base URL. */
  readonly baseUrl: string;
  readonly requests: SeenRequest[];
  /** Requests whose client went away before the reply ended. */
  readonly disconnects: number;
  /** Queues replies, used in order; when the queue is empty the server answers `fake reply`. */
  reply(...replies: FakeReply[]): void;
  /** Resolves once `count` clients have gone away early. */
  waitForDisconnects(count: number): Promise<void>;
  close(): Promise<void>;
}

/** A chat completion with text and optional tool calls. */
export function completion(
  text: string | null,
  options: {
    toolCalls?: { id: string; name: string; arguments: string }[];
    usage?: [number, number];
    finish?: string;
  } = {},
) {
  const toolCalls = options.toolCalls ?? [];
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 1,
    model: 'fake-model-1',
    choices: [
      {
        index: 0,
        finish_reason: options.finish ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
        message: {
          role: 'assistant',
          content: text,
          ...(toolCalls.length > 0
            ? {
                tool_calls: toolCalls.map((call) => ({
                  id: call.id,
                  type: 'function',
                  function: { name: call.name, arguments: call.arguments },
                })),
              }
            : {}),
        },
      },
    ],
    usage: {
      prompt_tokens: options.usage?.[0] ?? 7,
      completion_tokens: options.usage?.[1] ?? 3,
      total_tokens: (options.usage?.[0] ?? 7) + (options.usage?.[1] ?? 3),
    },
  };
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  id: 'chatcmpl-fake',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'fake-model-1',
  choices: [{ index: 0, delta, finish_reason: finish }],
});

/** Stream chunks of a text answer, one per piece, then finish and usage. */
export function textChunks(pieces: readonly string[], usage: [number, number] = [7, 3]): unknown[] {
  return [
    chunk({ role: 'assistant', content: '' }),
    ...pieces.map((piece) => chunk({ content: piece })),
    chunk({}, 'stop'),
    {
      id: 'chatcmpl-fake',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'fake-model-1',
      choices: [],
      usage: { prompt_tokens: usage[0], completion_tokens: usage[1], total_tokens: usage[0] + usage[1] },
    },
  ];
}

/** Stream chunks of one tool call whose name and arguments arrive split across several chunks. */
export function toolCallChunks(id: string, name: string, argumentPieces: readonly string[]): unknown[] {
  const half = Math.ceil(name.length / 2);
  return [
    chunk({
      role: 'assistant',
      content: null,
      tool_calls: [{ index: 0, id, type: 'function', function: { name: name.slice(0, half), arguments: '' } }],
    }),
    chunk({ tool_calls: [{ index: 0, function: { name: name.slice(half) } }] }),
    ...argumentPieces.map((piece) => chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] })),
    chunk({}, 'tool_calls'),
  ];
}

async function readBody(request: IncomingMessage): Promise<Record<string, any>> {
  let text = '';
  for await (const part of request) text += String(part);
  try {
    return JSON.parse(text) as Record<string, any>;
  } catch {
    return { unparsed: text };
  }
}

/** Starts a fake OpenAI-compatible server on 127.0.0.1 and a free port. */
export async function startFakeOpenAI(): Promise<FakeOpenAIServer> {
  const queue: FakeReply[] = [];
  const requests: SeenRequest[] = [];
  let disconnects = 0;
  let waiters: { count: number; resolve: () => void }[] = [];
  const open = new Set<ServerResponse>();

  const noteDisconnect = () => {
    disconnects += 1;
    waiters = waiters.filter((waiter) => (waiter.count <= disconnects ? (waiter.resolve(), false) : true));
  };

  const server = createServer(async (request, response) => {
    const body = await readBody(request);
    requests.push({ path: request.url ?? '', headers: request.headers, body });
    const reply = queue.shift() ?? { kind: 'json', body: completion('fake reply') };
    open.add(response);
    response.on('close', () => {
      open.delete(response);
      if (!response.writableEnded) noteDisconnect();
    });
    switch (reply.kind) {
      case 'json':
        if (reply.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
        response.writeHead(reply.status ?? 200, { 'Content-Type': 'application/json', ...reply.headers });
        response.end(JSON.stringify(reply.body));
        return;
      case 'raw':
        response.writeHead(reply.status, { 'Content-Type': reply.contentType });
        response.end(reply.body);
        return;
      case 'stream':
        response.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
        for (const item of reply.chunks) {
          response.write(`data: ${typeof item === 'string' ? item : JSON.stringify(item)}\n\n`);
          await new Promise((resolve) => setImmediate(resolve));
        }
        if (reply.hangAfter) return;
        if (reply.done !== false) response.write('data: [DONE]\n\n');
        response.end();
        return;
      case 'hang-body':
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.flushHeaders();
        return;
      case 'hang':
        return;
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    get disconnects() {
      return disconnects;
    },
    reply: (...replies) => queue.push(...replies),
    waitForDisconnects: (count) =>
      disconnects >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve })),
    close: async () => {
      for (const response of open) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Starts one fake server for the calling test file: closed after its tests, its request log emptied before each. */
export async function fakeOpenAIForThisFile(): Promise<FakeOpenAIServer> {
  const server = await startFakeOpenAI();
  afterAll(() => server.close());
  beforeEach(() => {
    server.requests.length = 0;
  });
  return server;
}
