import { describe, expect, it } from 'vitest';
import type { PlatformConfig } from '../../src/sdk/index.js';
import type { ActorPool } from '../actor-pool.js';
import { BackgroundRunWatch } from './background-runs.js';

/** A pool whose replicas answer `/agent/runs/<id>` with the answers given, one per read (the last one repeated). */
function scriptedPool(answers: (() => Response)[]): ActorPool & { reads: Request[] } {
  const reads: Request[] = [];
  const answer = async (request: Request) => {
    reads.push(request);
    const next = answers[Math.min(reads.length, answers.length) - 1];
    if (next === undefined) throw new TypeError('fetch failed');
    return next();
  };
  return {
    ref: 'r1',
    slug: 'fake',
    dir: '/nowhere',
    config: {} as PlatformConfig,
    meshGroup: undefined,
    replicas: () => [],
    forward: answer,
    forwardTo: (_index, request) => answer(request),
    reads,
  };
}

const state = (name: string) => () => Response.json({ id: 'inv_1', state: name });
const problem = (status: number) => () => Response.json({ code: 'x' }, { status });
const down = () => {
  throw new TypeError('fetch failed');
};

/** Follows `inv_1` on the pool and answers how it ended. */
function ending(watch: BackgroundRunWatch, pool: ActorPool): Promise<boolean> {
  return new Promise((resolve) => watch.follow(pool, 'inv_1', 'owner', 'req-1', resolve));
}

describe('BackgroundRunWatch', () => {
  it('reads the run for its tenant until it completes', async () => {
    const watch = new BackgroundRunWatch(1);
    const pool = scriptedPool([state('queued'), state('running'), state('awaiting_input'), state('completed')]);
    expect(await ending(watch, pool)).toBe(true);
    expect(pool.reads).toHaveLength(4);
    expect(new URL(pool.reads[0]?.url ?? '').pathname).toBe('/agent/runs/inv_1');
    expect(pool.reads[0]?.headers.get('x-tenant-id')).toBe('owner');
    expect(watch.size).toBe(0);
  });

  it.each(['failed', 'cancelled'])('ends a %s run as not completed', async (final) => {
    expect(await ending(new BackgroundRunWatch(1), scriptedPool([state('running'), state(final)]))).toBe(false);
  });

  it('ends a run the replicas do not know (404) as not completed', async () => {
    expect(await ending(new BackgroundRunWatch(1), scriptedPool([problem(404)]))).toBe(false);
  });

  it('reads again after an unreachable replica or a 503', async () => {
    const pool = scriptedPool([down, problem(503), state('completed')]);
    expect(await ending(new BackgroundRunWatch(1), pool)).toBe(true);
    expect(pool.reads).toHaveLength(3);
  });

  it('ends every run followed as not completed when closed', async () => {
    const watch = new BackgroundRunWatch(5);
    const ended = ending(watch, scriptedPool([state('running')]));
    expect(watch.size).toBe(1);
    await watch.close();
    expect(await ended).toBe(false);
  });

  it('refuses an interval that is no whole number of ms from 1', () => {
    expect(() => new BackgroundRunWatch(0)).toThrow(/interval/);
  });
});
