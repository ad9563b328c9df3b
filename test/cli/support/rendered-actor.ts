import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { REPOSITORY_ROOT } from '../../support/built-package.js';

/** The built `actorkit` binary of this checkout (see `ensureBuilt`). */
export const ACTORKIT_BINARY = join(REPOSITORY_ROOT, 'dist', 'cli', 'main.js');

/**
 * Renders a fresh actor named `name` in `parentDir` with the built `actorkit new --defaults`,
 * and links its dependencies (actorkit, valibot) from this checkout instead of installing them.
 * @returns the actor's folder
 */
export function renderActor(parentDir: string, name: string): string {
  const created = spawnSync(process.execPath, [ACTORKIT_BINARY, 'new', name, '--defaults'], {
    cwd: parentDir,
    encoding: 'utf8',
  });
  if (created.status !== 0) throw new Error(`actorkit new ${name} failed:\n${created.stderr}`);
  const dir = join(parentDir, name);
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  symlinkSync(REPOSITORY_ROOT, join(dir, 'node_modules', 'actorkit'), 'dir');
  symlinkSync(join(REPOSITORY_ROOT, 'node_modules', 'valibot'), join(dir, 'node_modules', 'valibot'), 'dir');
  return dir;
}
