import { lstatSync } from 'node:fs';
import { isAbsolute, join, normalize, relative, sep } from 'node:path';
import { CliError } from './cli-error.js';

// Symbolic links on a path inside a folder: `new` and `update` refuse a template path with one,
// `validate` names the link on the way to the actor's config.json.

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
  const link = firstLinkOnPath(base, inside);
  if (link !== undefined)
    throw new CliError(
      'failed',
      'template_symlink',
      `${label}: ${link} is a symbolic link, which templates may not contain`,
    );
}

/**
 * The first symbolic link met walking a relative path down from `base` (a linked folder on the
 * way, or the last part itself), as a POSIX path relative to `base`; `undefined` when there is
 * none, or the path stops existing (or meets a file where it needs a folder) first. `base` itself
 * is not checked.
 * @param base the folder the walk starts from
 * @param inside a path relative to `base` that does not leave it
 */
export function firstLinkOnPath(base: string, inside: string): string | undefined {
  let current = base;
  for (const part of normalize(inside)
    .split(sep)
    .filter((segment) => segment !== '' && segment !== '.')) {
    current = join(current, part);
    const stats = lstatSync(current, { throwIfNoEntry: false });
    if (stats === undefined) return undefined;
    if (stats.isSymbolicLink()) return relative(base, current).split(sep).join('/');
    if (!stats.isDirectory()) return undefined;
  }
  return undefined;
}
