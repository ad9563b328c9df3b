// scripts/bundle-entries.mjs, the second half of `npm run build`, run in a copy of the package's
// sources: a build with nothing changed writes nothing (test/cli/global-install.test.ts runs
// `npm install -g .`, whose `prepare` builds, while other tests start actors from dist/), a change
// replaces the files it changed whole and leaves no partial file, and the chunks of an earlier
// build are removed.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '../support/built-package.js';

const copy = mkdtempSync(join(tmpdir(), 'actorkit-bundle-entries-'));
afterAll(() => rmSync(copy, { recursive: true, force: true }));

const bundle = () =>
  execFileSync(process.execPath, [join(REPOSITORY_ROOT, 'scripts/bundle-entries.mjs')], {
    cwd: copy,
    encoding: 'utf8',
  });
/** Every file under dist/src with its inode and modification time. */
const files = () =>
  new Map(
    readdirSync(join(copy, 'dist/src'), { recursive: true, encoding: 'utf8' })
      .filter((path) => statSync(join(copy, 'dist/src', path)).isFile())
      .map((path) => {
        const { ino, mtimeMs } = statSync(join(copy, 'dist/src', path));
        return [path, `${ino}:${mtimeMs}`] as const;
      }),
  );

describe('scripts/bundle-entries.mjs', () => {
  it('writes nothing when nothing changed, replaces what changed whole and removes stale chunks', () => {
    for (const folder of ['src', 'platform-schema'])
      cpSync(join(REPOSITORY_ROOT, folder), join(copy, folder), { recursive: true });
    cpSync(join(REPOSITORY_ROOT, 'package.json'), join(copy, 'package.json'));
    symlinkSync(join(REPOSITORY_ROOT, 'node_modules'), join(copy, 'node_modules'));
    bundle();
    const first = files();
    expect([...first.keys()]).toEqual(
      expect.arrayContaining(['index.js', 'adapter/node/index.js', 'chunks/kysely.LICENSE']),
    );

    bundle();
    expect(files()).toEqual(first);

    // A change to code every entry shares: its chunk gets a new name, the old one goes.
    const changed = join(copy, 'src/core/time-ordered-id.ts');
    writeFileSync(changed, readFileSync(changed, 'utf8').replace("RUN_ID_PREFIX = 'inv_'", "RUN_ID_PREFIX = 'run_'"));
    bundle();
    const second = files();
    expect([...second.keys()].filter((path) => path.endsWith('.partial'))).toEqual([]);
    const chunks = (listing: Map<string, string>) => [...listing.keys()].filter((path) => path.startsWith('chunks/'));
    const gone = chunks(first).filter((path) => !second.has(path));
    const added = chunks(second).filter((path) => !first.has(path));
    expect(gone.length).toBeGreaterThan(0);
    expect(added.length).toBe(gone.length);
    // Files the change did not reach were left as they were.
    const untouched = [...second].filter(([path, stamp]) => first.get(path) === stamp);
    expect(untouched.length).toBeGreaterThan(0);
  });
});
