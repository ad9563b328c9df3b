import { execFile } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CliError } from '../cli-error.js';
import type { CliIo } from '../cli-io.js';
import { npmPack } from '../npm-pack.js';
import type { OwnPackage } from '../package-root.js';
import { actorkitOrigin } from './actorkit-origin.js';
import { vendoredActorkit } from './actorkit-dependency.js';

/** What a checkout compiles into `dist/`; `dist/.tsbuildinfo` is newer than all of it after a build. */
const BUILD_INPUTS = ['src', 'cli', 'package.json', 'tsconfig.json', 'tsconfig.build.json'];
const BUILD_STAMP = join('dist', '.tsbuildinfo');

const packed = new Map<string, Promise<Buffer>>();

/**
 * The tarball of the running actorkit, as `npm pack` makes it (once per process and package root).
 * From a checkout whose `dist/` is missing or older than its sources, `npm run build` runs first,
 * so the tarball never carries stale code.
 * @param own the package this CLI belongs to.
 * @param io the environment npm runs with.
 * @param progress where a line about a build goes.
 */
function packActorkit(own: OwnPackage, io: Pick<CliIo, 'env'>, progress: (line: string) => void): Promise<Buffer> {
  let tarball = packed.get(own.root);
  if (tarball === undefined) {
    tarball = pack(own, io, progress);
    packed.set(own.root, tarball);
    tarball.catch(() => packed.delete(own.root));
  }
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
export async function vendorActorkit(actorDir: string, dependency: string, own: OwnPackage, io: Pick<CliIo, 'env'>, progress: (line: string) => void): Promise<string | undefined> {
  const vendored = vendoredActorkit(dependency);
  if (vendored === undefined || !(await dependsOn(actorDir, dependency))) return undefined;
  const target = join(actorDir, vendored.path);
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, await packActorkit(own, io, progress));
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

async function pack(own: OwnPackage, io: Pick<CliIo, 'env'>, progress: (line: string) => void): Promise<Buffer> {
  if (actorkitOrigin(own) === 'checkout' && buildIsStale(own.root)) {
    progress(`building actorkit in ${own.root} (its dist/ is older than its sources) to pack it`);
    await npmRunBuild(own.root, io);
  }
  const workDir = await mkdtemp(join(tmpdir(), 'actorkit-pack-'));
  try {
    const file = await npmPack(own.root, workDir, { env: io.env, cwd: own.root });
    return await readFile(join(workDir, file));
  } finally {
    await rm(workDir, { recursive: true, force: true });
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
    if (entry !== 'node_modules') newest = Math.max(newest, newestChange(join(path, entry)));
  }
  return newest;
}

function npmRunBuild(root: string, io: Pick<CliIo, 'env'>): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('npm', ['run', 'build', '--silent'], { cwd: root, env: { ...io.env }, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (!error) return resolve();
      const output = `${stdout}${stderr}`.trim().split('\n').slice(0, 5).join('\n');
      reject(new CliError('failed', 'actorkit_build_failed', `\`npm run build\` in ${root} failed, so actorkit cannot be packed into the actor:\n${output}`, { cause: error }));
    });
  });
}
