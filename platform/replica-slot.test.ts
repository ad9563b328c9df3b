import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { processRunner, ReplicaSlot } from './replica-slot.js';

// A replica whose /ready answers as told: `ok` (200), `fail-once` (one 500, then ok), `slow`
// (no answer); /tell?mode=… sets it, /probes says how each probe was answered.
const REPLICA = `
import { createServer } from 'node:http';
let mode = 'ok';
const probes = [];
createServer((request, response) => {
  const url = new URL(request.url, 'http://x');
  if (url.pathname === '/tell') { mode = url.searchParams.get('mode'); return response.end(mode); }
  if (url.pathname === '/probes') return response.end(JSON.stringify(probes));
  if (mode === 'slow') { probes.push('slow'); return; }
  if (mode === 'fail-once') { mode = 'ok'; probes.push('failed'); return response.writeHead(500).end(); }
  probes.push('ok');
  response.end('ready');
}).listen(Number(process.env.PORT), '127.0.0.1');
`;

const waitFor = async (condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000) => {
  const until = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

describe('ReplicaSlot readiness', () => {
  let folder: string;
  afterAll(async () => {
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('keeps a ready replica in rotation through one failed probe, and takes it out only after the threshold in a row', async () => {
    folder = await mkdtemp(join(tmpdir(), 'actorkit-replica-slot-'));
    await writeFile(join(folder, 'replica.mjs'), REPLICA);
    const slot = new ReplicaSlot({
      index: 0,
      runner: processRunner({
        cwd: folder,
        command: [process.execPath, 'replica.mjs'],
        env: { PATH: process.env.PATH ?? '' },
      }),
      probePath: '/ready',
      report: () => {},
      probe: { everyMs: 20, timeoutMs: 300, failureThreshold: 2 },
    });
    const replica = async (path: string) => (await fetch(`${slot.url}${path}`)).text();
    const probes = async () => JSON.parse(await replica('/probes')) as string[];
    const states = new Set<string>();
    const watch = setInterval(() => states.add(slot.view().state), 2);
    try {
      await slot.start();
      await waitFor(() => slot.ready, 'the first ready');

      // One failed probe, then 200 again: the slot never left the rotation.
      states.clear();
      await replica('/tell?mode=fail-once');
      await waitFor(
        async () => (await probes()).join(',').includes('failed,ok,ok'),
        'a failed probe and two good ones after it',
      );
      expect(states).toEqual(new Set(['ready']));

      // No answer at all: out of rotation, but only once two probes in a row went unanswered.
      await replica('/tell?mode=slow');
      await waitFor(() => !slot.ready, 'the slot to leave the rotation');
      expect(slot.view().state).toBe('not_ready');
      expect((await probes()).filter((answer) => answer === 'slow').length).toBeGreaterThanOrEqual(2);

      await replica('/tell?mode=ok');
      await waitFor(() => slot.ready, 'the slot back in rotation');
    } finally {
      clearInterval(watch);
      await slot.stop(2_000);
    }
    expect(slot.view().state).toBe('exited');
  });
});
