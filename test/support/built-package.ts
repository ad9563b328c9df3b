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
 * Builds the package into `dist/` (incrementally) unless it is newer than every source, so tests
 * that run the built binary or the built example actor see the code of this checkout. Type errors
 * in files of other parts do not stop tsc from emitting, so the caller checks for the files it needs.
 */
export function ensureBuilt(): void {
  const buildInfo = join(REPOSITORY_ROOT, 'dist', '.tsbuildinfo');
  if (existsSync(buildInfo) && statSync(buildInfo).mtimeMs >= newestSource()) return;
  spawnSync(
    process.execPath,
    [join(REPOSITORY_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: REPOSITORY_ROOT,
      stdio: 'ignore',
    },
  );
}
