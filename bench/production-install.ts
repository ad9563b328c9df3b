/**
 * `npx tsx bench/production-install.ts [--image]`: what the production stage of a rendered actor's
 * image carries. Renders an actor with this checkout's CLI (defaults), runs its `npm install`, then
 * in two fresh folders with its package.json, package-lock.json and vendor/:
 *
 * - `npm ci --omit=dev --ignore-scripts` — the install line of the Dockerfile's deps stage before issue 25
 *   (with today's actorkit, which no longer names vitest as a peer);
 * - the `RUN` line of the rendered Dockerfile's `deps` stage, as written there;
 *
 * and prints, side by side, the bytes (file sizes added up), the package count and which packages
 * of the test and build toolchain each left in `node_modules`. The npm that runs both is the
 * host's (`npm --version` is printed): the image's own npm is older, which is why the Dockerfile's
 * line says more than `--omit=dev`. With `--image` (needs podman and the image tests' local base
 * image, see test/image/), it also builds the actor's image with its unchanged Dockerfile and
 * prints the image's size and the bytes of `/app/node_modules` inside it.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { isProductionToolchain } from '../test/image/support/production-toolchain.js';

const repositoryRoot = fileURLToPath(new URL('../', import.meta.url));
const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

const { values: options } = parseArgs({ options: { image: { type: 'boolean', default: false } } });

/** Sum of file sizes under `dir` (links not followed) and the packages at the top of `node_modules`. */
function measureModules(dir: string): { bytes: number; packages: string[] } {
  let bytes = 0;
  const walk = (path: string) => {
    for (const entry of readdirSync(path)) {
      const child = join(path, entry);
      const stats = lstatSync(child);
      if (stats.isDirectory()) walk(child);
      else bytes += stats.size;
    }
  };
  walk(dir);
  const packages = readdirSync(dir)
    .filter((name) => !name.startsWith('.'))
    .flatMap((name) =>
      name.startsWith('@') ? readdirSync(join(dir, name)).map((scoped) => `${name}/${scoped}`) : [name],
    );
  return { bytes, packages };
}

/** The `RUN` line of the rendered Dockerfile's `deps` stage. */
function depsStageCommand(dockerfile: string): string {
  const stage = dockerfile.split(/^FROM /m).find((part) => /\bAS deps\b/.test(part.split('\n')[0] ?? ''));
  // One instruction per line once the continuations (a backslash at the end of a line) are joined.
  const run = stage
    ?.replace(/\\\n\s*/g, '')
    .split('\n')
    .find((line) => line.startsWith('RUN '));
  if (run === undefined) throw new Error('the rendered Dockerfile has no RUN line in a stage named deps');
  return run.slice('RUN '.length);
}

function installInto(actor: string, command: string): ReturnType<typeof measureModules> {
  const folder = mkdtempSync(join(tmpdir(), 'actorkit-production-install-'));
  try {
    for (const entry of ['package.json', 'package-lock.json', 'vendor'])
      cpSync(join(actor, entry), join(folder, entry), { recursive: true });
    execFileSync('sh', ['-c', command], { cwd: folder, stdio: 'pipe' });
    return measureModules(join(folder, 'node_modules'));
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

const work = mkdtempSync(join(tmpdir(), 'actorkit-production-bench-'));
try {
  const actor = join(work, 'bench-actor');
  execFileSync(
    process.execPath,
    [join(repositoryRoot, 'dist', 'cli', 'main.js'), 'new', 'bench-actor', actor, '--defaults'],
    { stdio: 'pipe' },
  );
  execFileSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: actor, stdio: 'pipe' });
  const dockerfileLine = depsStageCommand(readFileSync(join(actor, 'Dockerfile'), 'utf8'));
  const rows = [
    {
      label: 'npm ci --omit=dev (the line the deps stage ran before)',
      ...installInto(actor, 'npm ci --omit=dev --ignore-scripts --no-audit --no-fund'),
    },
    { label: "the Dockerfile's deps stage", ...installInto(actor, dockerfileLine) },
  ];
  const npmVersion = execFileSync('npm', ['--version'], { encoding: 'utf8' }).trim();
  console.log(`production install of a rendered actor (defaults), host npm ${npmVersion}`);
  console.log(`deps stage: RUN ${dockerfileLine}`);
  console.log('| install | MiB (file sizes) | packages | toolchain left |');
  console.log('|---|---|---|---|');
  for (const row of rows) {
    const left = row.packages.filter(isProductionToolchain);
    console.log(`| ${row.label} | ${mib(row.bytes)} | ${row.packages.length} | ${left.join(', ') || 'none'} |`);
  }
  const [before, after] = rows;
  if (before && after)
    console.log(
      `after/before: ${(after.bytes / before.bytes).toFixed(2)} of the bytes, ${after.packages.length}/${before.packages.length} packages`,
    );
  if (options.image) {
    const { ensureBaseImage, runCommand, writeEngineConfig } = await import('../test/image/support/index.js');
    await ensureBaseImage();
    const env = writeEngineConfig(join(work, 'engine'), { insecureRegistries: [] });
    const image = `localhost/actorkit-bench/bench-actor:${Date.now()}`;
    try {
      await runCommand('podman', ['build', '-q', '-f', join(actor, 'Dockerfile'), '-t', image, actor], {
        env,
        timeoutMs: 900_000,
      });
      const size = Number(
        (await runCommand('podman', ['image', 'inspect', '--format', '{{.Size}}', image], { env })).trim(),
      );
      const modules = Number(
        (
          await runCommand(
            'podman',
            ['run', '--rm', '--entrypoint', 'sh', image, '-c', 'du -sb /app/node_modules | cut -f1'],
            { env },
          )
        ).trim(),
      );
      const npmInImage = (
        await runCommand('podman', ['run', '--rm', '--entrypoint', 'npm', image, '--version'], { env })
      ).trim();
      console.log(
        `image (podman, local stand-in base with npm ${npmInImage}): ${mib(size)} MiB; /app/node_modules ${mib(modules)} MiB (du -sb)`,
      );
    } finally {
      await runCommand('podman', ['rmi', '--force', '--ignore', image], { env }).catch(() => undefined);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
