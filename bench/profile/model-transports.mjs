// What one call to an OpenAI-compatible model costs the caller's CPU, by transport: the `openai`
// SDK over Node's `fetch`, the SDK over a `fetch` shim on `node:http`, a plain `fetch` and
// `JSON.parse` without the SDK (over Node's `fetch` and over the shim), `node:http` with a
// keep-alive agent and no Fetch objects, and the built actor's own model
// (`createOpenAICompatibleModel`). Each calls the peer comparison's mock model
// (bench/peers/mock-model-server.mjs, another process) with a 21-message conversation, at 32 in
// flight; CPU µs per call from `process.cpuUsage()`, interleaved rounds after a warm-up round.
//
// Run (after `npm run build`): node bench/profile/model-transports.mjs [calls per round, 4000] [rounds, 3]
// — with Node 24: test/runtimes/node_modules/.bin/node bench/profile/model-transports.mjs
import { spawn } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';

const root = new URL('../../', import.meta.url);
const calls = Number(process.argv[2] ?? 4000);
const rounds = Number(process.argv[3] ?? 3);
const { default: OpenAI } = await import('openai');
const { createOpenAICompatibleModel } = await import(new URL('dist/src/agent/providers/openai-compatible.js', root).href);

const mock = spawn(process.execPath, [fileURLToPath(new URL('bench/peers/mock-model-server.mjs', root))], { stdio: ['ignore', 'pipe', 'inherit'] });
const port = await new Promise((resolve) => mock.stdout.once('data', (line) => resolve(JSON.parse(String(line)).port)));
const baseURL = `http://127.0.0.1:${port}/v1`;
const messages = Array.from({ length: 21 }, (_, index) => ({ role: index % 2 ? 'assistant' : 'user', content: `message number ${index} `.repeat(8) }));
const request = { model: 'mock-model', messages };
const agent = new http.Agent({ keepAlive: true });

/** A `fetch` over `node:http`: the body in one write, the answer as a `Response`. */
function nodeHttpFetch(url, init) {
  return new Promise((resolve, reject) => {
    const headers = {};
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const outgoing = http.request(url, { method: init.method, headers, agent, signal: init.signal }, (incoming) => {
      const pieces = [];
      incoming.on('data', (piece) => pieces.push(piece));
      incoming.on('end', () => {
        const answerHeaders = new Headers();
        for (let index = 0; index < incoming.rawHeaders.length; index += 2) answerHeaders.append(incoming.rawHeaders[index], incoming.rawHeaders[index + 1]);
        resolve(new Response(Buffer.concat(pieces), { status: incoming.statusCode, headers: answerHeaders }));
      });
      incoming.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(init.body);
  });
}

function rawNodeHttp() {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify(request);
    const headers = { 'content-type': 'application/json', authorization: 'Bearer x', 'content-length': Buffer.byteLength(body) };
    const outgoing = http.request(`${baseURL}/chat/completions`, { method: 'POST', headers, agent }, (incoming) => {
      let text = '';
      incoming.setEncoding('utf8');
      incoming.on('data', (piece) => {
        text += piece;
      });
      incoming.on('end', () => resolve(JSON.parse(text)));
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

const plainFetch = (fetchFunction) => async () => {
  const response = await fetchFunction(`${baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer x' },
    body: JSON.stringify(request),
    signal: new AbortController().signal,
  });
  return response.json();
};
const sdkOverFetch = new OpenAI({ apiKey: 'x', baseURL, maxRetries: 2, timeout: 60_000 });
const sdkOverNodeHttp = new OpenAI({ apiKey: 'x', baseURL, maxRetries: 2, timeout: 60_000, fetch: nodeHttpFetch });
const actorModel = createOpenAICompatibleModel({ baseUrl: baseURL, model: 'mock-model', apiKey: 'x' });

const variants = {
  'openai SDK, Node fetch': () => sdkOverFetch.chat.completions.create({ ...request, stream: false }, { signal: new AbortController().signal }),
  'openai SDK, node:http fetch shim': () => sdkOverNodeHttp.chat.completions.create({ ...request, stream: false }, { signal: new AbortController().signal }),
  'fetch + JSON, Node fetch': plainFetch(fetch),
  'fetch + JSON, node:http fetch shim': plainFetch(nodeHttpFetch),
  'node:http, keep-alive, no Fetch objects': rawNodeHttp,
  "the actor's model (createOpenAICompatibleModel)": () => actorModel.generate({ messages, tools: [], signal: new AbortController().signal }),
};

async function cpuPerCall(call, count) {
  let started = 0;
  const before = process.cpuUsage();
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (started++ < count) await call();
    }),
  );
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

for (const call of Object.values(variants)) await cpuPerCall(call, Math.ceil(calls / 2));
const figures = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
for (let round = 0; round < rounds; round += 1) for (const [name, call] of Object.entries(variants)) figures[name].push(Math.round(await cpuPerCall(call, calls)));
mock.kill();
process.stdout.write(`Node ${process.versions.node}, ${calls} calls per round at 32 in flight, CPU µs per call by round:\n\n| transport | CPU µs per call |\n| --- | --- |\n`);
for (const [name, values] of Object.entries(figures)) process.stdout.write(`| ${name} | ${values.join(', ')} |\n`);
