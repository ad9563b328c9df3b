// The mock model both sides of the peer comparison call: an OpenAI-compatible chat
// completions server on loopback (plain node:http, no dependencies) that answers every call
// with the same short text, as one JSON completion or, for `stream: true`, as server-sent
// events (one content chunk, then the finish chunk with usage). Its CPU is counted for neither
// side. Prints the `actor_listening` line test/contract/spawn-actor.ts waits for; serves
// `GET /ready` for waitUntilReady, with the calls so far and the byte size of the last request body by model name.
import { createServer } from 'node:http';

const ANSWER = 'Hello from the mock model.';
const usage = { prompt_tokens: 12, completion_tokens: 6, total_tokens: 18 };
let calls = 0;
/** Bytes of the last request body by the model it named: the size of the plain request the bench compares the actor's model call with. */
const lastRequestBytes = {};

function completion(model) {
  return {
    id: `chatcmpl-mock-${calls}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: ANSWER }, finish_reason: 'stop' }],
    usage,
  };
}

function chunks(model) {
  const base = { id: `chatcmpl-mock-${calls}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model };
  return [
    { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: ANSWER }, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage },
  ];
}

const server = createServer((request, response) => {
  if (request.method === 'GET' && (request.url === '/ready' || request.url === '/health')) {
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'ready', calls, lastRequestBytes }));
    return;
  }
  if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
    response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
    return;
  }
  let body = '';
  request.setEncoding('utf8');
  request.on('data', (chunk) => {
    body += chunk;
  });
  request.on('end', () => {
    calls += 1;
    let parsed = {};
    try {
      parsed = JSON.parse(body);
    } catch {
      response.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"invalid JSON"}}');
      return;
    }
    const model = typeof parsed.model === 'string' ? parsed.model : 'mock-model';
    lastRequestBytes[model] = Buffer.byteLength(body);
    if (parsed.stream === true) {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      for (const chunk of chunks(model)) response.write(`data: ${JSON.stringify(chunk)}\n\n`);
      response.end('data: [DONE]\n\n');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion(model)));
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const { port } = server.address();
  console.log(JSON.stringify({ event: 'actor_listening', runtime: 'node', port, url: `http://127.0.0.1:${port}` }));
});
for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => server.close(() => process.exit(0)));
