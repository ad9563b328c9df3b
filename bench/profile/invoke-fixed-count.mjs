// Answers a fixed number of `POST /agent/invoke` (or `GET /health`) in this process through
// `app.fetch`, at 32 in flight (FIXED_COUNT_CONCURRENCY), then stops: the child that bench/profile/invoke-instructions.ts
// runs under valgrind. Plain JavaScript over a built checkout, so nothing is compiled while it
// is counted.
//
// Run: node bench/profile/invoke-fixed-count.mjs <checkout> <requests> <bare|memory|sqlite|mock> [invoke|health]
// (`mock`: the memory store, the model at MOCK_MODEL_URL — the peer comparison's mock model).
// FIXED_COUNT_LOG_LEVEL sets the actor's LOG_LEVEL (default info): `warn` leaves out the line of
// each invoke, whose shared write is flushed by the clock and so counts differently run to run.
// FIXED_COUNT_CONCURRENCY sets how many requests are in flight (default 32): at 1 no two turns
// share a group commit, so a change's count does not depend on how the turns interleave.
// FIXED_COUNT_DATABASE_URL puts the `sqlite` stack on that database (SQLite file or PostgreSQL)
// instead of a fresh file, with FIXED_COUNT_HISTORY_LIMIT as its HISTORY_LIMIT; the invokes then
// go to the sessions bench/scale.ts seeds (`bench-session-<n>`, FIXED_COUNT_SESSIONS of them,
// default 200).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [checkout, invokesText, stack, route = 'invoke'] = process.argv.slice(2);
const invokes = Number(invokesText);
if (checkout === undefined || !(invokes > 0) || !['bare', 'memory', 'sqlite', 'mock'].includes(stack ?? '') || !['invoke', 'health'].includes(route)) {
  throw new Error('usage: invoke-fixed-count.mjs <checkout> <requests> <bare|memory|sqlite|mock> [invoke|health]');
}
if (stack === 'mock' && !process.env.MOCK_MODEL_URL) throw new Error('the mock stack needs MOCK_MODEL_URL (the mock model\'s /v1 URL)');
const load = (path) => import(pathToFileURL(join(checkout, path)).href);
const dataDir = mkdtempSync(join(tmpdir(), 'actorkit-fixed-count-'));
const seededDatabase = process.env.FIXED_COUNT_DATABASE_URL || undefined;
if (seededDatabase !== undefined && stack !== 'sqlite') throw new Error('FIXED_COUNT_DATABASE_URL is for the sqlite stack (the store its URL names)');
const sessions = Number(process.env.FIXED_COUNT_SESSIONS ?? 200);
const sessionId = (turn) => (seededDatabase === undefined ? `session-${turn % 200}` : `bench-session-${turn % sessions}`);

/** @type {{ fetch: (request: Request) => Response | Promise<Response>, stop: () => Promise<number | undefined> }} */
let target;
if (stack === 'bare') {
  const { createBareApp } = await load('bench/bare-hono/bare-app.mjs');
  const app = createBareApp();
  target = { fetch: (request) => app.fetch(request), stop: async () => undefined };
} else {
  const { createApp } = await load('dist/examples/hello-actor/src/app.js');
  const { MemoryStore } = await load('dist/src/store/memory-store.js');
  const model = stack === 'mock' ? { LLM_MODEL: 'mock-model', LLM_BASE_URL: process.env.MOCK_MODEL_URL } : {};
  const seeded = seededDatabase === undefined ? {} : { DATABASE_URL: seededDatabase, HISTORY_LIMIT: process.env.FIXED_COUNT_HISTORY_LIMIT ?? '20' };
  const app = createApp({ DATA_DIR: dataDir, LOG_LEVEL: process.env.FIXED_COUNT_LOG_LEVEL ?? 'info', ...model, ...seeded }, stack === 'sqlite' ? {} : { store: new MemoryStore() });
  await app.actor.start();
  target = {
    fetch: (request) => app.fetch(request),
    stop: async () => {
      const { invocations } = await (await app.request('/stats')).json();
      await app.actor.shutdown({ graceMs: 5_000 });
      return invocations;
    },
  };
}

let sent = 0;
let answered = 0;
await Promise.all(
  Array.from({ length: Number(process.env.FIXED_COUNT_CONCURRENCY ?? 32) }, async () => {
    while (sent < invokes) {
      sent += 1;
      if (route === 'health') {
        const response = await target.fetch(new Request('http://127.0.0.1:8080/health', { headers: { Host: '127.0.0.1:8080' } }));
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`/health answered ${response.status}`);
        answered += 1;
        continue;
      }
      const body = JSON.stringify({ user_identifier: `user-${sent % 50}`, session_id: sessionId(sent), message: `What is the weather? ${sent}` });
      // With its Content-Length, as an HTTP client sends it (the body limit judges it by the header).
      const headers = { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) };
      const response = await target.fetch(new Request('http://127.0.0.1/agent/invoke', { method: 'POST', headers, body }));
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`invoke answered ${response.status}`);
      answered += 1;
    }
  }),
);
const counted = await target.stop();
rmSync(dataDir, { recursive: true, force: true });
if (route === 'invoke' && counted !== undefined && counted !== answered) throw new Error(`/stats counted ${counted} invokes, ${answered} were answered 200`);
process.stderr.write(`answered ${answered}\n`);
