/**
 * `actorkit new` from this checkout keeps the tarball it vendors in
 * node_modules/.cache/actorkit/packed/: a second `new` of an unchanged checkout does not run
 * `npm pack` (seen through an `npm` on PATH that logs each call before running the real one).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/run-cli.js';
import { packedFilesDigest } from '../../cli/render/packed-files-digest.js';
import { PACKED_TARBALL_CACHE } from '../../cli/render/packed-tarball-cache.js';
import { ensureBuilt, REPOSITORY_ROOT } from '../support/built-package.js';
import { memoryIo } from './support/memory-io.js';
import { temporaryFolder } from './support/template-repo.js';

const folder = temporaryFolder('actorkit-new-vendor-cache-');
const VERSION = (JSON.parse(readFileSync(join(REPOSITORY_ROOT, 'package.json'), 'utf8')) as { version: string })
  .version;
const VENDORED = join('vendor', `actorkit-${VERSION}.tgz`);

beforeAll(() => ensureBuilt());
afterAll(() => folder.cleanup());

/** A folder holding an `npm` that appends its arguments to `log`, then runs the real npm. */
function loggingNpm(log: string): string {
  const bin = join(folder.dir, 'logging-npm');
  mkdirSync(bin, { recursive: true });
  const realNpm = execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim();
  writeFileSync(join(bin, 'npm'), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${realNpm}' "$@"\n`);
  chmodSync(join(bin, 'npm'), 0o755);
  return bin;
}

async function newActor(name: string, path: string) {
  const run = memoryIo({ cwd: folder.dir, env: { PATH: path, HOME: process.env.HOME } });
  const code = await runCli(['new', name, '--defaults'], run);
  return { code, stderr: run.stderr(), actor: join(folder.dir, name) };
}

const npmCalls = (log: string) => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []);

describe('actorkit new from a checkout: the packed actorkit is cached', () => {
  it('the first new packs (the entry for this checkout was removed), a second one does not run npm pack and vendors the same tarball', async () => {
    const log = join(folder.dir, 'npm-calls.log');
    const path = `${loggingNpm(log)}:${process.env.PATH}`;
    const cache = join(REPOSITORY_ROOT, PACKED_TARBALL_CACHE);
    const digest = packedFilesDigest(REPOSITORY_ROOT)!;
    for (const name of existsSync(cache) ? readdirSync(cache) : [])
      if (name.includes(digest)) rmSync(join(cache, name), { force: true });
    const first = await newActor('first', path);
    expect(first.code, first.stderr).toBe(0);
    const afterFirst = npmCalls(log).length;
    expect(npmCalls(log).filter((call) => call.startsWith('pack'))).toHaveLength(1);
    const second = await newActor('second', path);
    expect(second.code, second.stderr).toBe(0);
    expect(
      npmCalls(log)
        .slice(afterFirst)
        .filter((call) => call.startsWith('pack')),
    ).toEqual([]);
    expect(second.stderr).not.toContain('packing actorkit');
    const vendored = readFileSync(join(second.actor, VENDORED));
    expect(vendored.equals(readFileSync(join(first.actor, VENDORED)))).toBe(true);
    const cached = readdirSync(cache).filter((name) => name.includes(digest));
    expect(cached).toHaveLength(1);
    expect(readFileSync(join(cache, cached[0]!)).equals(vendored)).toBe(true);
    const listed = execFileSync('tar', ['-tzf', join(second.actor, VENDORED)], { encoding: 'utf8' }).split('\n');
    expect(listed).toEqual(
      expect.arrayContaining([
        'package/dist/cli/main.js',
        'package/package.json',
        'package/templates/actor/template.yml',
      ]),
    );
  }, 120_000);
});
