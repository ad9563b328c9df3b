import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';

/** The repository root. */
export const REPOSITORY_ROOT = resolve(import.meta.dirname, '../..');

/** Newest modification time of the TypeScript sources `tsconfig.build.json` compiles. */
function newestSource(): number {
  let newest = 0;
  for (const dir of [
    'cli',
    'src',
    'platform',
    join('examples', 'hello-actor', 'src'),
    join('examples', 'mesh-actor', 'src'),
  ]) {
    for (const entry of readdirSync(join(REPOSITORY_ROOT, dir), { recursive: true })) {
      const path = join(REPOSITORY_ROOT, dir, String(entry));
      if (path.endsWith('.ts') && !path.endsWith('.test.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
    }
  }
  return newest;
}

/**
 * Builds the package into `dist/` with the steps of package.json's `build` script (tsc,
 * incrementally, then the bundled entries of scripts/bundle-entries.mjs) unless it is newer than
 * every source, so tests that run the built binary or the built example actor see the code of this
 * checkout: tsc alone would leave the bundles with the code of the last full build. Each step runs
 * whatever the one before exited with (type errors in files of other parts do not stop tsc from
 * emitting, and the bundles are made from the sources either way), so the caller checks for the
 * files it needs.
 */
export function ensureBuilt(): void {
  const buildInfo = join(REPOSITORY_ROOT, 'dist', '.tsbuildinfo');
  if (existsSync(buildInfo) && statSync(buildInfo).mtimeMs >= newestSource()) return;
  const { scripts } = JSON.parse(readFileSync(join(REPOSITORY_ROOT, 'package.json'), 'utf8')) as {
    scripts: { build: string };
  };
  const path = `${join(REPOSITORY_ROOT, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}`;
  for (const step of scripts.build.split('&&'))
    spawnSync(step.trim(), { cwd: REPOSITORY_ROOT, shell: true, stdio: 'ignore', env: { ...process.env, PATH: path } });
}
