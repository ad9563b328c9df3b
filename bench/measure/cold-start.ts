import { get } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { RuntimeProcess } from '../../test/contract/runtimes-under-test.js';
import { spawnActor, type SpawnedActor } from '../../test/contract/spawn-actor.js';

/** A started server and how long it took from spawning the process to the first 200 from `/ready`. */
export interface ColdStart {
  readonly actor: SpawnedActor;
  readonly readyMs: number;
}

function readyStatus(baseUrl: string): Promise<number> {
  return new Promise((resolve) => {
    const outgoing = get(`${baseUrl}/ready`, { agent: false }, (incoming) => {
      incoming.resume();
      incoming.on('end', () => resolve(incoming.statusCode ?? 0));
    });
    outgoing.on('error', () => resolve(0));
  });
}

/**
 * Spawns a server (test/contract/spawn-actor.ts) and polls `GET /ready` every 2 ms once it
 * listens, timing process start to the first 200. The caller disposes of the actor.
 * @param runtime what to run
 * @param env extra environment of the process
 * @param timeoutMs how long to wait for readiness
 */
export async function measureColdStart(
  runtime: RuntimeProcess,
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<ColdStart> {
  const started = performance.now();
  const actor = await spawnActor(runtime, env);
  while ((await readyStatus(actor.baseUrl)) !== 200) {
    if (performance.now() - started > timeoutMs) {
      await actor.dispose();
      throw new Error(`${runtime.name}: /ready did not answer 200 within ${timeoutMs} ms\n${actor.output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return { actor, readyMs: Math.round((performance.now() - started) * 10) / 10 };
}
