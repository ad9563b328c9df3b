import { afterEach, describe, expect, it } from 'vitest';
import { checkRuntime, RUNTIMES_UNDER_TEST } from '../contract/runtimes-under-test.js';
import { spawnActor, type SpawnedActor, waitUntilReady, within } from '../contract/spawn-actor.js';

// The log lines as a user sees them on a Node actor's standard output, which the sink writes
// straight to the file descriptor: SIGTERM right after the last reply, while its `invoke_finished`
// lines are still held for their shared write, loses none of them; every line is one whole
// JSON record, in the order they were logged.

const INVOKES = 120;
const CONCURRENCY = 12;
const NODE_RUNTIMES = RUNTIMES_UNDER_TEST.filter(
  (runtime) => runtime.name === 'node-system' || runtime.name === 'node24',
);

for (const runtime of NODE_RUNTIMES) {
  describe(`log lines on standard output at SIGTERM, ${runtime.name}`, () => {
    const actors: SpawnedActor[] = [];
    afterEach(async () => {
      for (const actor of actors.splice(0)) await actor.dispose();
    });

    it('every invoke has its invoke_finished line, whole and in order, before the shutdown lines', async () => {
      checkRuntime(runtime);
      const actor = await spawnActor(runtime);
      actors.push(actor);
      let stdout = '';
      actor.child.stdout!.on('data', (chunk: string) => (stdout += chunk));
      await waitUntilReady(actor);

      const requestIds: string[] = [];
      let next = 0;
      const worker = async () => {
        while (next < INVOKES) {
          next += 1;
          const response = await fetch(new URL('/agent/invoke', actor.baseUrl), {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({
              user_identifier: `user-${next % 5}`,
              session_id: `session-${next % 9}`,
              message: `héllo ✓ ${next}`,
            }),
          });
          expect(response.status).toBe(200);
          await response.arrayBuffer();
          requestIds.push(response.headers.get('X-Request-Id')!);
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      actor.child.kill('SIGTERM');
      expect(await within(actor.exited, 20_000, 'exit after SIGTERM')).toEqual({ code: 0, signal: null });

      expect(stdout.endsWith('\n')).toBe(true);
      const records = stdout
        .slice(0, -1)
        .split('\n')
        .map((line) => JSON.parse(line) as { event: string; time: string; request_id?: string; outcome?: string });
      const finished = records.filter((record) => record.event === 'invoke_finished');
      expect(finished.map((record) => record.request_id).sort()).toEqual([...requestIds].sort());
      expect(new Set(requestIds).size).toBe(INVOKES);
      expect(finished.every((record) => record.outcome === 'success')).toBe(true);
      const events = records.map((record) => record.event);
      expect(events.lastIndexOf('invoke_finished')).toBeLessThan(events.indexOf('actor_shutdown_started'));
      expect(events.slice(-2)).toEqual(['actor_stopped', 'actor_server_closed']);
      const times = records.map((record) => record.time);
      expect(times).toEqual([...times].sort());
    });
  });
}
