import { existsSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { OwnPackage } from '../package-root.js';

/**
 * The `actorkit` dependency a rendered actor gets. When this CLI runs from a source checkout,
 * `file:` the checkout — relative when the actor lives inside it (the checked-in examples),
 * absolute otherwise — so the actor installs offline against exactly this code. Otherwise a
 * caret range of the installed version.
 * @param own the package this CLI belongs to
 * @param targetDir where the actor is rendered (absolute)
 */
export function actorkitDependency(own: OwnPackage, targetDir: string): string {
  const fromSource = existsSync(join(own.root, 'cli', 'main.ts')) && existsSync(join(own.root, '.git'));
  if (!fromSource) return `^${own.version}`;
  const inside = targetDir.startsWith(own.root + sep);
  return `file:${inside ? relative(targetDir, own.root).split(sep).join('/') : own.root}`;
}
