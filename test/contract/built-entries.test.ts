// The contract suite runs the built example actor under each runtime; it must load actorkit's
// built entries (the bundles of scripts/bundle-entries.mjs), as a user's actor does from
// node_modules, not the TypeScript sources a runtime could reach through the repository's
// tsconfig.json `paths` (Bun applies them at run time).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/built-package.js';
import { checkRuntime, RUNTIMES_UNDER_TEST } from './runtimes-under-test.js';

const probe = fileURLToPath(new URL('../fixtures/built-entries/resolve-actorkit.mjs', import.meta.url));
const root = fileURLToPath(new URL('../../', import.meta.url));

beforeAll(() => {
  ensureBuilt();
  for (const runtime of RUNTIMES_UNDER_TEST) checkRuntime(runtime);
}, 180_000);

describe('the runtimes under test load the built entries', () => {
  it.each(RUNTIMES_UNDER_TEST.map((runtime) => [runtime.name, runtime] as const))(
    '%s resolves actorkit and its adapter to dist/src, as a user actor does',
    async (_name, runtime) => {
      const adapter = runtime.name.startsWith('node') ? 'node' : runtime.name;
      const { stdout } = await promisify(execFile)(runtime.command, [...runtime.args.slice(0, -1), probe, adapter], {
        cwd: root,
        encoding: 'utf8',
        timeout: 30_000,
      });
      const resolved = stdout.trim().split('\n');
      expect(resolved).toEqual([
        new URL('dist/src/index.js', `file://${root}`).href,
        new URL(`dist/src/adapter/${adapter}/index.js`, `file://${root}`).href,
      ]);
    },
  );
});
