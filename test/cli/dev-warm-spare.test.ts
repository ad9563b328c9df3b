import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, REPOSITORY_ROOT } from '../support/built-package.js';

// The warm spare `actorkit dev` keeps beside the actor (cli/dev/warm-start.ts): it loads
// actorkit, then waits for a line on standard input before it imports the actor. It must wait
// however long that takes: a spare that ended on its own (exit code 13, "a top-level await never
// settled", once nothing but the pipe it had let go of was left) left the next save without an
// actor, as CI saw once.

const WARM_START = join(REPOSITORY_ROOT, 'dist/cli/dev/warm-start.js');
const ENTRY = join(REPOSITORY_ROOT, 'dist/examples/hello-actor/src/main.node.js');
const dataDir = mkdtempSync(join(tmpdir(), 'actorkit-warm-spare-'));

beforeAll(() => ensureBuilt());
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function startSpare() {
  const child = spawn(process.execPath, [WARM_START, ENTRY], {
    cwd: REPOSITORY_ROOT,
    env: { ...process.env, PORT: '0', DATA_DIR: dataDir },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((settle) => child.on('exit', (code) => settle(code)));
  return { child, exited, output: () => output };
}

const within = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise, new Promise<'still running'>((settle) => setTimeout(() => settle('still running'), ms))]);

describe('the warm spare of actorkit dev', () => {
  it('waits for its line as long as actorkit dev runs, then becomes the actor', async () => {
    const spare = startSpare();
    // Loading actorkit takes well under this; the spare must still be there after it.
    expect(await within(spare.exited, 3_000)).toBe('still running');
    spare.child.stdin.write('start\n');
    const deadline = Date.now() + 20_000;
    while (!spare.output().includes('"event":"actor_ready"') && Date.now() < deadline)
      await new Promise((wait) => setTimeout(wait, 100));
    expect(spare.output()).toContain('"event":"actor_ready"');
    spare.child.stdin.end(); // actorkit dev went away: the actor drains and ends
    expect(await within(spare.exited, 15_000)).not.toBe('still running');
    expect(spare.output()).toContain('"event":"actor_stopped"');
  }, 45_000);

  it('ends when actorkit dev goes away before telling it anything', async () => {
    const spare = startSpare();
    expect(await within(spare.exited, 2_000)).toBe('still running');
    spare.child.stdin.end();
    expect(await within(spare.exited, 15_000)).not.toBe('still running');
  }, 30_000);
});
