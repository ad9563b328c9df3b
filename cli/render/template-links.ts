import { lstatSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { CliError } from '../cli-error.js';

/**
 * Refuses a template path that could read outside the template: one that leaves `base`, or one
 * with a symbolic link on its way (the link itself, or a linked folder above it). A template
 * comes from a repository someone else controls, and git checks links out as links.
 * @param base the folder the path is relative to (the template repository or its root)
 * @param path the path inside `base`, relative or absolute
 * @param label what the path is, for the message (`_subdirectory 'tpl'`, `{% include "x" %}`)
 */
export function assertNoLinkOnPath(base: string, path: string, label: string): void {
  const inside = relative(base, isAbsolute(path) ? path : join(base, path));
  if (inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) {
    throw new CliError('failed', 'path_escape', `${label} leaves the template`);
  }
  let current = base;
  for (const part of inside.split(sep).filter((segment) => segment !== '' && segment !== '.')) {
    current = join(current, part);
    const stats = lstatSync(current, { throwIfNoEntry: false });
    if (stats === undefined) return;
    if (stats.isSymbolicLink()) {
      throw new CliError('failed', 'template_symlink', `${label}: ${relative(base, current).split(sep).join('/')} is a symbolic link, which templates may not contain`);
    }
  }
}
