import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An OpenAI-compatible model server on loopback that answers slowly, so a run is in progress long enough to be killed. */
export interface SlowModelServer {
  /** `http://127.0.0.1:<port>/v1`, for `LLM_BASE_URL`. */
  readonly baseUrl: string;
  /** Chat completions asked for so far. */
  readonly calls: number;
  /** Words of each answer and the wait before each: change them between tests. */
  pace: { words: number; gapMs: number };
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts a model server that answers every chat completion with the words `word1 … wordN`,
 * one every `gapMs` (streamed for `stream: true`, whole after the same wait otherwise), as
 * `npx tsx scripts/slow-model-server.ts` serves by hand. A client that goes away stops its answer.
 */
export async function startSlowModelServer(pace = { words: 20, gapMs: 250 }, listenPort = 0): Promise<SlowModelServer> {
  let calls = 0;
  const open = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', async () => {
      let parsed: { model?: string; stream?: boolean };
      try {
        if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) throw new Error('not found');
        parsed = JSON.parse(body) as typeof parsed;
      } catch {
        response
          .writeHead(404, { 'content-type': 'application/json' })
          .end('{"error":{"message":"POST a chat completion to /v1/chat/completions"}}');
        return;
      }
      calls += 1;
      open.add(response);
      let gone = false;
      response.on('close', () => {
        gone = true;
        open.delete(response);
      });
      const { words, gapMs } = handle.pace;
      const text = Array.from({ length: words }, (_, index) => `word${index + 1}`);
      const usage = { prompt_tokens: 10, completion_tokens: words, total_tokens: 10 + words };
      const base = {
        id: `chatcmpl-slow-${calls}`,
        created: Math.floor(Date.now() / 1000),
        model: parsed.model ?? 'slow',
      };
      if (parsed.stream !== true) {
        await sleep(gapMs * words);
        if (gone) return;
        const message = { role: 'assistant', content: text.join(' ') };
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            ...base,
            object: 'chat.completion',
            choices: [{ index: 0, message, finish_reason: 'stop' }],
            usage,
          }),
        );
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const chunk = (delta: object, finish: string | null) => ({
        ...base,
        object: 'chat.completion.chunk',
        choices: [{ index: 0, delta, finish_reason: finish }],
      });
      for (const [index, word] of text.entries()) {
        if (gone) return;
        response.write(`data: ${JSON.stringify(chunk({ content: index === 0 ? word : ` ${word}` }, null))}\n\n`);
        await sleep(gapMs);
      }
      if (gone) return;
      response.write(`data: ${JSON.stringify({ ...chunk({}, 'stop'), usage })}\n\n`);
      response.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(listenPort, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const handle: SlowModelServer = {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    get calls() {
      return calls;
    },
    pace: { ...pace },
    async close() {
      for (const response of open) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return handle;
}
