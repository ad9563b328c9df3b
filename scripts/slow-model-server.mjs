// A slow OpenAI-compatible model server on loopback, to rehearse runs by hand (docs/http-api.md,
// "Runs"): every chat completion answers the numbers one to `WORDS` (default 20), one word every
// `GAP_MS` (default 250), streamed for `stream: true` and whole (after the same wait) otherwise.
// A client that goes away stops its answer. Plain node:http, no dependency:
//   PORT=9100 node scripts/slow-model-server.mjs
//   LLM_BASE_URL=http://127.0.0.1:9100/v1 LLM_MODEL=slow npm start
import { createServer } from 'node:http';

const WORDS = Number(process.env.WORDS ?? 20);
const GAP_MS = Number(process.env.GAP_MS ?? 250);
const words = Array.from({ length: WORDS }, (_, index) => `word${index + 1}`);
const usage = { prompt_tokens: 10, completion_tokens: WORDS, total_tokens: 10 + WORDS };
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const server = createServer((request, response) => {
  if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
    response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
    return;
  }
  let body = '';
  request.setEncoding('utf8');
  request.on('data', (chunk) => {
    body += chunk;
  });
  request.on('end', async () => {
    let parsed;
    try {
      parsed = JSON.parse(body);
    } catch {
      response.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"invalid JSON"}}');
      return;
    }
    let gone = false;
    response.on('close', () => {
      gone = true;
    });
    const model = typeof parsed.model === 'string' ? parsed.model : 'slow';
    const base = { id: `chatcmpl-slow-${Date.now()}`, created: Math.floor(Date.now() / 1000), model };
    if (parsed.stream !== true) {
      await sleep(GAP_MS * WORDS);
      const message = { role: 'assistant', content: words.join(' ') };
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: 'stop' }], usage }));
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const chunk = (delta, finish) => ({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] });
    for (const [index, word] of words.entries()) {
      if (gone) return;
      response.write(`data: ${JSON.stringify(chunk({ content: index === 0 ? word : ` ${word}` }, null))}\n\n`);
      await sleep(GAP_MS);
    }
    response.write(`data: ${JSON.stringify({ ...chunk({}, 'stop'), usage })}\n\n`);
    response.end('data: [DONE]\n\n');
  });
});
server.listen(Number(process.env.PORT ?? 9100), '127.0.0.1', () => {
  console.log(`slow model server on http://127.0.0.1:${server.address().port}/v1 (${WORDS} words, one every ${GAP_MS} ms)`);
});
for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => server.close(() => process.exit(0)));
