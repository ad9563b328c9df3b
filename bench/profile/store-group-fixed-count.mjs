// Runs a fixed number of groups of turns through a built checkout's SQLite store in this
// process — each turn's history read, then the group's `saveTurns` (the invocation
// buffer's group commit, without its clock) — then stops, for counting the store's instructions
// per turn under valgrind. The turns are the bench's load (200 sessions of 50 users, the user's
// message and the answer) with ids made from their index, and the groups are fixed, so two runs
// of one build count the same (to 0.001%). Plain JavaScript over a built checkout, so nothing is
// compiled while it is counted.
//
// Run: node bench/profile/store-group-fixed-count.mjs <checkout> <groups> [group size, 32]
// Instructions per turn of a checkout, with the runtime's driver (Node 24: node:sqlite; Node 20:
// libSQL): (count at 250 groups − count at 50) / (200 × 32), each count from
//   valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
//     <node> --predictable bench/profile/store-group-fixed-count.mjs <checkout> <groups>
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [checkout, groupsText, sizeText = '32'] = process.argv.slice(2);
const groups = Number(groupsText);
const size = Number(sizeText);
if (checkout === undefined || !(groups > 0) || !(size > 0)) throw new Error('usage: store-group-fixed-count.mjs <checkout> <groups> [group size]');
const load = (path) => import(pathToFileURL(join(checkout, path)).href);
const { openStore } = await load('dist/src/store/open-store.js');
const { silentLogger } = await load('dist/src/log/logger.js');
const dataDir = mkdtempSync(join(tmpdir(), 'actorkit-store-group-'));
const store = await openStore({ dataDir, logger: silentLogger });
await store.migrate();

let turn = 0;
/** Turn `index` of the bench's load, with a record id made from its index (the same in every run). */
function makeTurn(index) {
  const now = new Date(1_800_000_000_000 + index).toISOString();
  const message = `Hello from the bench, turn ${index}`;
  return {
    id: `record-${String(index).padStart(10, '0')}`,
    tenantId: 'default',
    sessionId: `bench-session-${index % 200}`,
    userIdentifier: `bench-user-${index % 50}`,
    outcome: 'success',
    inputTokens: 12,
    outputTokens: 6,
    toolCalls: 0,
    latencyMs: 1,
    finishedAt: now,
    history: [
      { id: `user-${index}`, role: 'user', content: message, createdAt: now },
      { id: `answer-${index}`, role: 'assistant', content: `[offline model] You said: ${message}`, createdAt: now },
    ],
  };
}

for (let group = 0; group < groups; group += 1) {
  const records = Array.from({ length: size }, () => makeTurn(turn++));
  await Promise.all(records.map((record) => store.loadHistory(record.tenantId, record.sessionId, 20)));
  await store.saveTurns(records);
}
const { invocations } = await store.readStats();
await store.close();
rmSync(dataDir, { recursive: true, force: true });
if (invocations !== turn) throw new Error(`the store counted ${invocations} turns of ${turn}`);
process.stderr.write(`turns ${turn}\n`);
