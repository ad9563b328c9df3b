// The Node adapter's heap defaults (src/adapter/node/heap-defaults.ts) in the built example actor,
// on the machine's Node and on Node 24: under invokes V8 grows the new space to its own limit
// (two 16 MiB semi-spaces); the actor holds it at `NODE_HEAP_DEFAULTS.maxSemiSpaceMiB`, and
// `NODE_HEAP_TUNING=false` gives V8's own sizing back; on Node 24 a new space that start-up grew
// past the limit is shrunk as `actorkit/node` loads. Read from inside the process (SIGUSR2 to
// test/support/report-new-space.mjs), after a fixed number of invokes: no timing, no RSS.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendInvokes } from '../../bench/load/send-invokes.js';
import { NODE_HEAP_DEFAULTS } from '../../src/adapter/node/heap-defaults.js';
import { ensureBuilt } from '../support/built-package.js';
import { checkRuntime, RUNTIMES_UNDER_TEST } from './runtimes-under-test.js';
import { spawnActor, waitUntilReady, within } from './spawn-actor.js';

const reporter = fileURLToPath(new URL('../support/report-new-space.mjs', import.meta.url));
const grower = fileURLToPath(new URL('../support/grow-new-space.mjs', import.meta.url));
const workDir = mkdtempSync(join(tmpdir(), 'actorkit-heap-defaults-'));
const NODES = RUNTIMES_UNDER_TEST.filter((runtime) => runtime.name === 'node-system' || runtime.name === 'node24');
const LIMIT_BYTES = 2 * NODE_HEAP_DEFAULTS.maxSemiSpaceMiB * 2 ** 20;
let runs = 0;

/**
 * Starts the example actor on `runtime` (after `preloads`), sends `invokes` invokes at 32
 * connections, and returns its new space's committed bytes.
 */
async function newSpaceAfterInvokes(
  runtime: (typeof NODES)[number],
  env: Record<string, string>,
  { invokes = 3_000, preloads = [] as string[] } = {},
): Promise<number> {
  const file = join(workDir, `new-space-${(runs += 1)}.txt`);
  const actor = await spawnActor(
    {
      ...runtime,
      args: [...preloads.flatMap((preload) => ['--import', preload]), '--import', reporter, ...runtime.args],
    },
    { DATABASE_URL: '', DATA_DIR: join(workDir, `data-${runs}`), NEW_SPACE_FILE: file, ...env },
    { drainAfterListening: true },
  );
  try {
    await waitUntilReady(actor);
    if (invokes > 0) expect((await sendInvokes(actor.baseUrl, invokes, 32)).ok).toBe(invokes);
    actor.child.kill('SIGUSR2');
    await within(
      (async () => {
        while (!existsSync(file) || readFileSync(file, 'utf8') === '')
          await new Promise((resolve) => setTimeout(resolve, 20));
      })(),
      10_000,
      'the new-space report',
    );
    return Number(readFileSync(file, 'utf8'));
  } finally {
    await actor.dispose();
  }
}

beforeAll(() => {
  ensureBuilt();
  for (const runtime of NODES) checkRuntime(runtime);
}, 180_000);

afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe.each(NODES)('the Node heap defaults on $name', (runtime) => {
  it('hold the new space at the limit under invokes; NODE_HEAP_TUNING=false leaves V8 to grow it past', async () => {
    expect(await newSpaceAfterInvokes(runtime, {})).toBeLessThanOrEqual(LIMIT_BYTES);
    expect(await newSpaceAfterInvokes(runtime, { NODE_HEAP_TUNING: 'false' })).toBeGreaterThan(LIMIT_BYTES);
  }, 120_000);
});

describe('the Node heap defaults on node24', () => {
  const node24 = NODES.find((runtime) => runtime.name === 'node24')!;
  it('shrink a new space that start-up grew past the limit (Node 20 keeps it: docs/runtimes.md)', async () => {
    expect(
      await newSpaceAfterInvokes(node24, { NODE_HEAP_TUNING: 'false' }, { invokes: 0, preloads: [grower] }),
    ).toBeGreaterThan(LIMIT_BYTES);
    expect(await newSpaceAfterInvokes(node24, {}, { invokes: 0, preloads: [grower] })).toBeLessThanOrEqual(LIMIT_BYTES);
  }, 60_000);
});
