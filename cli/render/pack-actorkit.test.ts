import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { temporaryFolder, writeFiles } from '../../test/cli/support/template-repo.js';
import { withoutPackingLine } from '../../test/support/packing-line.js';
import type { CliIo } from '../cli-io.js';
import { npmPackFolder } from '../npm-pack.js';
import { extractTarball } from '../update/extract-tarball.js';
import { packActorkit } from './pack-actorkit.js';
import { PACKED_TARBALL_CACHE } from './packed-tarball-cache.js';

const folder = temporaryFolder('actorkit-pack-cache-test-');
afterAll(() => folder.cleanup());
const env = { PATH: process.env.PATH, HOME: process.env.HOME };
let counter = 0;

/** A small package laid out like actorkit (a `files` list, a build output, sources that are not packed) with a `node_modules` folder. */
function fixturePackage(manifest: Record<string, unknown> = {}): string {
  const root = join(folder.dir, `package-${++counter}`);
  writeFiles(root, {
    'package.json': `${JSON.stringify({ name: 'actorkit', version: '1.0.0', files: ['dist', 'templates'], ...manifest }, null, 2)}\n`,
    'README.md': '# fixture\n',
    'dist/index.js': 'export const answer = 1;\n',
    'templates/actor/template.yml': 'actor_name: {type: str}\n',
    'src/index.ts': 'export const answer = 1;\n',
  });
  mkdirSync(join(root, 'node_modules'));
  return root;
}

/** `npm pack` (the real one), counting how often it runs. */
function countingPack() {
  const runs: string[] = [];
  const pack = (root: string, io: Pick<CliIo, 'env'>) => {
    runs.push(root);
    return npmPackFolder(root, io);
  };
  return { pack, runs };
}

async function packOf(root: string, pack: ReturnType<typeof countingPack>['pack'], progress: string[] = []) {
  return packActorkit({ root, version: '1.0.0' }, { env, progress: (line) => progress.push(line), pack });
}

/** The files of a tarball, path → text (below `package/`). */
async function filesIn(tarball: Buffer): Promise<Record<string, string>> {
  const dir = await mkdtemp(join(tmpdir(), 'actorkit-pack-cache-read-'));
  try {
    const file = join(dir, 'packed.tgz');
    writeFileSync(file, tarball);
    const paths = await extractTarball(file, join(dir, 'out'), () => true);
    return Object.fromEntries(
      await Promise.all(paths.map(async (path) => [path, await readFile(join(dir, 'out', path), 'utf8')] as const)),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const cacheEntries = (root: string) => readdirSync(join(root, PACKED_TARBALL_CACHE)).sort();

describe('packActorkit: the cache of packed tarballs', () => {
  it('packs once, then hands back the cached tarball byte for byte without running npm pack', async () => {
    const root = fixturePackage();
    const { pack, runs } = countingPack();
    const first = await packOf(root, pack);
    expect(runs).toHaveLength(1);
    expect(cacheEntries(root)).toEqual([expect.stringMatching(/^actorkit-1\.0\.0-[0-9a-f]{64}\.tgz$/)]);
    const second = await packOf(root, pack);
    expect(runs).toHaveLength(1);
    expect(second.equals(first)).toBe(true);
    expect(Object.keys(await filesIn(second)).sort()).toEqual([
      'README.md',
      'dist/index.js',
      'package.json',
      'templates/actor/template.yml',
    ]);
  });

  it('a change to a file under dist/ packs again, and the new tarball carries the change', async () => {
    const root = fixturePackage();
    const { pack, runs } = countingPack();
    await packOf(root, pack);
    writeFileSync(join(root, 'dist', 'index.js'), 'export const answer = 2;\n');
    const changed = await packOf(root, pack);
    expect(runs).toHaveLength(2);
    expect((await filesIn(changed))['dist/index.js']).toBe('export const answer = 2;\n');
    expect(cacheEntries(root)).toHaveLength(2);
    // and the changed state is now what the cache serves
    expect((await packOf(root, pack)).equals(changed)).toBe(true);
    expect(runs).toHaveLength(2);
  });

  it('a new file under dist/, or a file whose executable bit changed, packs again', async () => {
    const root = fixturePackage();
    const { pack, runs } = countingPack();
    await packOf(root, pack);
    writeFileSync(join(root, 'dist', 'extra.js'), 'export {};\n');
    expect(Object.keys(await filesIn(await packOf(root, pack)))).toContain('dist/extra.js');
    chmodSync(join(root, 'dist', 'extra.js'), 0o755);
    await packOf(root, pack);
    expect(runs).toHaveLength(3);
  });

  it('a change to package.json (or its files list) packs again, and the tarball has the new package.json', async () => {
    const root = fixturePackage();
    const { pack, runs } = countingPack();
    await packOf(root, pack);
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(root, 'package.json'), JSON.stringify({ ...manifest, description: 'changed' }));
    const described = await filesIn(await packOf(root, pack));
    expect(JSON.parse(described['package.json'] ?? '{}')).toMatchObject({ description: 'changed' });
    writeFileSync(join(root, 'package.json'), JSON.stringify({ ...manifest, files: ['dist'] }));
    const narrowed = await filesIn(await packOf(root, pack));
    expect(Object.keys(narrowed)).not.toContain('templates/actor/template.yml');
    expect(runs).toHaveLength(3);
  });

  it('an .npmignore that leaves a file out packs again, without that file', async () => {
    const root = fixturePackage();
    const { pack, runs } = countingPack();
    await packOf(root, pack);
    writeFileSync(join(root, 'dist', '.npmignore'), 'index.js\n');
    const tarball = await packOf(root, pack);
    expect(runs).toHaveLength(2);
    expect(Object.keys(await filesIn(tarball))).not.toContain('dist/index.js');
  });

  it('a change to a file npm pack leaves out (sources, the lock file) reuses the cached tarball', async () => {
    const root = fixturePackage();
    const { pack, runs } = countingPack();
    const first = await packOf(root, pack);
    writeFileSync(join(root, 'src', 'index.ts'), 'export const answer = 3;\n');
    writeFileSync(join(root, 'package-lock.json'), '{}\n');
    expect((await packOf(root, pack)).equals(first)).toBe(true);
    expect(runs).toHaveLength(1);
  });

  it.each([
    ['truncated', (path: string) => truncateSync(path, Math.floor(statSync(path).size / 2))],
    ['emptied', (path: string) => truncateSync(path, 0)],
    [
      'damaged in the middle',
      (path: string) => {
        const bytes = readFileSync(path);
        bytes.fill(0x41, Math.floor(bytes.length / 3), Math.floor((2 * bytes.length) / 3));
        writeFileSync(path, bytes);
      },
    ],
    [
      'a gzip of something else',
      (path: string) => writeFileSync(path, gzipSync(Buffer.alloc(4096, 'not a tar archive'))),
    ],
  ])('a cache entry that is %s is not used: npm pack runs again and a whole entry replaces it', async (_, damage) => {
    const root = fixturePackage();
    const { pack, runs } = countingPack();
    const whole = await packOf(root, pack);
    const [entry] = cacheEntries(root);
    damage(join(root, PACKED_TARBALL_CACHE, entry!));
    const again = await packOf(root, pack);
    expect(runs).toHaveLength(2);
    expect(Object.keys(await filesIn(again)).sort()).toEqual(Object.keys(await filesIn(whole)).sort());
    expect(readFileSync(join(root, PACKED_TARBALL_CACHE, entry!)).equals(again)).toBe(true);
  });

  it('two packs at once both succeed and leave one whole entry, and no temporary file', async () => {
    const root = fixturePackage();
    const { pack, runs } = countingPack();
    const [one, two] = await Promise.all([packOf(root, pack), packOf(root, pack)]);
    expect(runs).toHaveLength(2);
    expect(Object.keys(await filesIn(one!))).toContain('dist/index.js');
    expect(Object.keys(await filesIn(two!))).toContain('dist/index.js');
    const entries = cacheEntries(root);
    expect(entries).toHaveLength(1);
    expect((await filesIn(readFileSync(join(root, PACKED_TARBALL_CACHE, entries[0]!))))['dist/index.js']).toBe(
      'export const answer = 1;\n',
    );
    await packOf(root, pack);
    expect(runs).toHaveLength(2);
  });

  it('a cache that cannot be written (node_modules/.cache is a file) only means packing every time, never an error', async () => {
    const root = fixturePackage();
    writeFileSync(join(root, 'node_modules', '.cache'), 'not a folder\n');
    const { pack, runs } = countingPack();
    const first = await packOf(root, pack);
    const second = await packOf(root, pack);
    expect(runs).toHaveLength(2);
    expect(Object.keys(await filesIn(second))).toContain('dist/index.js');
    expect(second.length).toBe(first.length);
    expect(readFileSync(join(root, 'node_modules', '.cache'), 'utf8')).toBe('not a folder\n');
  });

  it('a package without node_modules (an installed package with hoisted dependencies) gets no cache folder', async () => {
    const root = fixturePackage();
    rmSync(join(root, 'node_modules'), { recursive: true });
    const { pack, runs } = countingPack();
    await packOf(root, pack);
    await packOf(root, pack);
    expect(runs).toHaveLength(2);
    expect(readdirSync(root).sort()).toEqual(['README.md', 'dist', 'package.json', 'src', 'templates']);
  });

  it('a package that bundles dependencies is packed every time (they live in node_modules, which the key does not read)', async () => {
    const root = fixturePackage({ bundleDependencies: ['left-pad'] });
    const { pack, runs } = countingPack();
    await packOf(root, pack);
    await packOf(root, pack);
    expect(runs).toHaveLength(2);
    expect(readdirSync(join(root, 'node_modules'))).toEqual([]);
  });

  it('keeps the three most recently used entries', async () => {
    const root = fixturePackage();
    const { pack } = countingPack();
    const entries: string[] = [];
    for (const answer of [1, 2, 3, 4]) {
      writeFileSync(join(root, 'dist', 'index.js'), `export const answer = ${answer};\n`);
      await packOf(root, pack);
      const added = cacheEntries(root).find((name) => !entries.includes(name));
      entries.push(added!);
      // entries written in the same millisecond would tie on age
      utimesSync(join(root, PACKED_TARBALL_CACHE, added!), new Date(), new Date(Date.now() - (4 - answer) * 60_000));
    }
    expect(cacheEntries(root)).toEqual(entries.slice(1).sort());
  });

  it('a pack that fails is not cached, and its error comes through', async () => {
    const root = fixturePackage();
    writeFileSync(join(root, 'package.json'), '{ not json');
    const { pack, runs } = countingPack();
    await expect(packOf(root, pack)).rejects.toMatchObject({ code: 'npm_pack_failed' });
    expect(runs).toHaveLength(1);
    expect(readdirSync(join(root, 'node_modules'))).toEqual([]);
  });

  it('says what is happening when a pack takes a while, and nothing when the cache answers', async () => {
    const root = fixturePackage();
    const progress: string[] = [];
    const slowPack = async (packRoot: string, io: Pick<CliIo, 'env'>) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return npmPackFolder(packRoot, io);
    };
    await packActorkit(
      { root, version: '1.0.0' },
      { env, progress: (line) => progress.push(line), pack: slowPack, announceAfterMs: 10 },
    );
    expect(progress).toEqual([
      `packing actorkit from ${root} (npm pack); kept in ${PACKED_TARBALL_CACHE}/ for the next run`,
    ]);
    expect(withoutPackingLine(`${progress[0]}\n`)).toBe('');
    await packActorkit(
      { root, version: '1.0.0' },
      { env, progress: (line) => progress.push(line), pack: slowPack, announceAfterMs: 0 },
    );
    expect(progress).toHaveLength(1);
  });
});

describe('packActorkit from a checkout: built first when its dist/ is stale, and then cached', () => {
  /** A checkout (`.git`, `cli/main.ts`) whose `npm run build` copies src/ to dist/ and logs its runs, and leaves `dist/.tsbuildinfo` alone as tsc does when nothing changed. */
  function fixtureCheckout(): { root: string; builds: () => number } {
    const root = join(folder.dir, `checkout-${++counter}`);
    const log = join(folder.dir, `checkout-${counter}-builds.log`);
    writeFiles(root, {
      'package.json': JSON.stringify({
        name: 'actorkit',
        version: '1.0.0',
        files: ['dist'],
        scripts: { build: 'node build.mjs' },
      }),
      'build.mjs': `import { appendFileSync, copyFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(log)}, 'built\\n');\ncopyFileSync('src/index.js', 'dist/index.js');\n`,
      '.git/HEAD': 'ref: refs/heads/main\n',
      'cli/main.ts': 'export {};\n',
      'cli/main.test.ts': 'export {};\n',
      'src/index.js': 'export const answer = 1;\n',
      'dist/index.js': 'export const answer = 1;\n',
    });
    mkdirSync(join(root, 'node_modules'));
    writeFileSync(join(root, 'dist', '.tsbuildinfo'), '{}\n');
    return { root, builds: () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0) };
  }

  it('builds once after a source edit (not after a test edit), packs the new build, and neither builds nor packs again', async () => {
    const { root, builds } = fixtureCheckout();
    const { pack, runs } = countingPack();
    const progress: string[] = [];
    await packOf(root, pack, progress);
    writeFileSync(join(root, 'cli', 'main.test.ts'), 'export const edited = true;\n');
    await packOf(root, pack, progress);
    expect([builds(), runs.length]).toEqual([0, 1]);
    writeFileSync(join(root, 'src', 'index.js'), 'export const answer = 2;\n');
    // the build's start (which dates the stamp, in whole ms) falls after the edit, as when a person runs new
    await new Promise((resolve) => setTimeout(resolve, 5));
    const rebuilt = await packOf(root, pack, progress);
    expect([builds(), runs.length]).toEqual([1, 2]);
    expect((await filesIn(rebuilt))['dist/index.js']).toBe('export const answer = 2;\n');
    // (a pack slower than a second, as on a loaded machine, adds its own "packing actorkit from" line)
    expect(progress.filter((line) => !line.startsWith('packing actorkit from'))).toEqual([
      `building actorkit in ${root} (its dist/ is older than its sources) to pack it`,
    ]);
    expect((await packOf(root, pack, progress)).equals(rebuilt)).toBe(true);
    expect([builds(), runs.length]).toEqual([1, 2]);
  });
});
