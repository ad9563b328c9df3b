import { mkdtempSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
const root = resolve(process.argv[2] ?? '.');
const load = (p: string) => import(pathToFileURL(join(root, p)).href);
const { createActorApp } = await load('src/index.ts');
const { silentLogger } = await load('src/log/logger.ts');
const { testActorDefinition } = await load('src/testing/create-test-actor.ts');
const dir = mkdtempSync('/tmp/cpu-probe-');
const app = createActorApp({ definition: testActorDefinition, env: { DATA_DIR: dir }, logger: silentLogger });
await app.actor.start();
const body = (i: number) => JSON.stringify({ user_identifier: `u${i % 50}`, session_id: `s${i % 200}`, message: 'Hello there, what can you do?' });
async function round(n: number) {
  let next = 0;
  const worker = async () => { while (next < n) { const i = next++; const r = await app.request('/agent/invoke', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: body(i) }); await r.text(); } };
  await Promise.all(Array.from({ length: 32 }, worker));
}
await round(3000);
const results = [];
for (let k = 0; k < 5; k++) {
  const c0 = process.cpuUsage(); const t0 = performance.now();
  await round(4000);
  await new Promise((r) => setTimeout(r, 100));
  const c = process.cpuUsage(c0); const t = performance.now() - t0;
  results.push(Math.round((c.user + c.system) / 4000));
}
console.log(root, 'CPU µs/invoke', results.sort((a, b) => a - b));
await app.actor.shutdown({ graceMs: 500 });
