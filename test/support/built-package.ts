import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

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
 * Builds the package into `dist/` as `npm run build` does (tsc, incrementally, then the bundled
 * entries of scripts/bundle-entries.mjs) unless it is newer than every source, so tests that run
 * the built binary or the built example actor see the code of this checkout: tsc alone would leave
 * the bundles with the code of the last full build. Type errors in files of other parts do not
 * stop tsc from emitting, so the bundles are made either way and the caller checks for the files
 * it needs.
 */
export function ensureBuilt(): void {
  const buildInfo = join(REPOSITORY_ROOT, 'dist', '.tsbuildinfo');
  if (existsSync(buildInfo) && statSync(buildInfo).mtimeMs >= newestSource()) return;
  const steps = [
    [join(REPOSITORY_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    [join(REPOSITORY_ROOT, 'scripts', 'bundle-entries.mjs')],
  ];
  for (const args of steps) spawnSync(process.execPath, args, { cwd: REPOSITORY_ROOT, stdio: 'ignore' });
}
