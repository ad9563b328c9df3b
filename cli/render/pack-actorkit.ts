import { execFile } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { CliError } from '../cli-error.js';
import type { CliIo } from '../cli-io.js';
import { npmPackFolder } from '../npm-pack.js';
import type { OwnPackage } from '../package-root.js';
import { actorkitOrigin } from './actorkit-origin.js';
import { vendoredActorkit } from './actorkit-dependency.js';
import { packedFilesDigest } from './packed-files-digest.js';
import {
  PACKED_TARBALL_CACHE,
  packedTarballCacheFolder,
  readCachedTarball,
  storeCachedTarball,
} from './packed-tarball-cache.js';

/** The parts of the actorkit package that packing reads: its folder and version. */
type ActorkitPackage = Pick<OwnPackage, 'root' | 'version'>;

/** What a checkout compiles into `dist/`; `dist/.tsbuildinfo` is newer than all of it after a build. */
const BUILD_INPUTS = ['src', 'cli', 'package.json', 'tsconfig.json', 'tsconfig.build.json'];
const BUILD_STAMP = join('dist', '.tsbuildinfo');
/** Files under the build inputs that tsconfig.build.json leaves out, so an edit to one never calls for a build. */
const NOT_BUILT = /\.test\.ts$/;

/** A pack still running after this long is announced, so a user waiting knows why. */
const ANNOUNCE_PACK_AFTER_MS = 1000;

/** How {@link packActorkit} packs and reports; tests replace `pack` to count the packs it runs. */
export interface PackActorkitOptions {
  /** The environment npm runs with. */
  readonly env: CliIo['env'];
  /** Where a line about a build, or a pack that takes a while, goes. */
  readonly progress: (line: string) => void;
  /** Makes the tarball of a package folder; default {@link npmPackFolder} (`npm pack`). */
  readonly pack?: (root: string, io: Pick<CliIo, 'env'>) => Promise<Buffer>;
  /** After how many ms a pack still running is announced; default 1000. */
  readonly announceAfterMs?: number;
}

/**
 * The tarball of the running actorkit, as `npm pack` makes it. From a checkout whose `dist/` is
 * missing or older than its sources, `npm run build` runs first, so the tarball never carries
 * stale code. A package with a `node_modules` folder keeps its tarballs in
 * `node_modules/.cache/actorkit/packed/`, named by the digest of every file the tarball could hold
 * ({@link packedFilesDigest}): an unchanged package is not packed again, and a change to any packed
 * file (the build output, package.json, the `files` list, an ignore file) packs afresh. A cache
 * that is damaged, unreadable or read-only is passed over, never an error.
 * @param own the package this CLI belongs to.
 * @param options the environment, the progress sink and (for tests) the packer.
 */
export async function packActorkit(own: ActorkitPackage, options: PackActorkitOptions): Promise<Buffer> {
  const { env, progress, pack = npmPackFolder, announceAfterMs = ANNOUNCE_PACK_AFTER_MS } = options;
  if (actorkitOrigin(own) === 'checkout' && buildIsStale(own.root)) {
    progress(`building actorkit in ${own.root} (its dist/ is older than its sources) to pack it`);
    await buildCheckout(own.root, { env });
  }
  const folder = packedTarballCacheFolder(own.root);
  const digest = folder === undefined ? undefined : digestOrNothing(own.root);
  const entry = digest === undefined ? undefined : `actorkit-${own.version}-${digest}.tgz`;
  if (folder !== undefined && entry !== undefined) {
    const cached = await readCachedTarball(folder, entry);
    if (cached !== undefined) return cached;
  }
  const kept = entry === undefined ? '' : `; kept in ${PACKED_TARBALL_CACHE}/ for the next run`;
  const tarball = await announcedWhenSlow(
    pack(own.root, { env }),
    `packing actorkit from ${own.root} (npm pack)${kept}`,
    progress,
    announceAfterMs,
  );
  // Files that changed while npm packed may or may not be in the tarball: store it only under a digest that still holds.
  if (folder !== undefined && entry !== undefined && digestOrNothing(own.root) === digest)
    await storeCachedTarball(folder, entry, tarball);
  return tarball;
}

/**
 * Writes the running actorkit's tarball into a rendered actor at the path its `actorkit`
 * dependency names (`vendor/actorkit-<version>.tgz`) when the rendered `package.json` does depend
 * on it; does nothing for any other dependency or template.
 * @param actorDir the rendered actor (a staging or render folder).
 * @param dependency the actor's `actorkit` dependency.
 * @returns the written path, relative to `actorDir`, or undefined.
 */
export async function vendorActorkit(
  actorDir: string,
  dependency: string,
  own: ActorkitPackage,
  io: Pick<CliIo, 'env'>,
  progress: (line: string) => void,
): Promise<string | undefined> {
  const vendored = vendoredActorkit(dependency);
  if (vendored === undefined || !(await dependsOn(actorDir, dependency))) return undefined;
  const target = join(actorDir, vendored.path);
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, await packActorkit(own, { env: io.env, progress }));
  return vendored.path;
}

async function dependsOn(actorDir: string, dependency: string): Promise<boolean> {
  const manifest = await readFile(join(actorDir, 'package.json'), 'utf8').catch(() => '{}');
  try {
    return (JSON.parse(manifest) as { dependencies?: Record<string, unknown> }).dependencies?.actorkit === dependency;
  } catch {
    return false;
  }
}

/** The digest of what `npm pack` could put into the tarball, or `undefined` when it cannot be worked out (a folder that cannot be read). */
function digestOrNothing(root: string): string | undefined {
  try {
    return packedFilesDigest(root);
  } catch {
    return undefined;
  }
}

/** Waits for `work`, saying `line` once when it is not done after `afterMs`. */
async function announcedWhenSlow<T>(
  work: Promise<T>,
  line: string,
  progress: (line: string) => void,
  afterMs: number,
): Promise<T> {
  const timer = setTimeout(() => progress(line), afterMs);
  try {
    return await work;
  } finally {
    clearTimeout(timer);
  }
}

function buildIsStale(root: string): boolean {
  const stamp = join(root, BUILD_STAMP);
  if (!existsSync(stamp)) return true;
  const built = statSync(stamp).mtimeMs;
  return BUILD_INPUTS.some((input) => newestChange(join(root, input)) > built);
}

function newestChange(path: string): number {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (entry !== 'node_modules' && !NOT_BUILT.test(entry)) newest = Math.max(newest, newestChange(join(path, entry)));
  }
  return newest;
}

/**
 * Runs `npm run build`, then dates the build stamp no earlier than the build's start: tsc leaves
 * `.tsbuildinfo` alone when nothing it emits changed (a touched source, a new folder), and the
 * checkout would otherwise look stale, and be built, on every run. A source saved during the build
 * stays newer than the stamp.
 */
async function buildCheckout(root: string, io: Pick<CliIo, 'env'>): Promise<void> {
  const started = new Date();
  await npmRunBuild(root, io);
  const stamp = join(root, BUILD_STAMP);
  const built = statSync(stamp, { throwIfNoEntry: false });
  if (built !== undefined && built.mtimeMs < started.getTime())
    await utimes(stamp, built.atime, started).catch(() => undefined);
}

function npmRunBuild(root: string, io: Pick<CliIo, 'env'>): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      'npm',
      ['run', 'build', '--silent'],
      { cwd: root, env: { ...io.env }, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (!error) return resolve();
        const output = `${stdout}${stderr}`.trim().split('\n').slice(0, 5).join('\n');
        reject(
          new CliError(
            'failed',
            'actorkit_build_failed',
            `\`npm run build\` in ${root} failed, so actorkit cannot be packed into the actor:\n${output}`,
            { cause: error },
          ),
        );
      },
    );
  });
}
