import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import type { OwnPackage } from '../package-root.js';

/**
 * Where the running actorkit comes from: `checkout` (a git clone of its sources, run with tsx or
 * from its `dist/`, or linked by `npm link` / `npm install -g .`), `registry` (installed from an npm
 * registry), or `local` (installed from a tarball or a folder, or anything else that cannot be told
 * apart from those).
 */
export type ActorkitOrigin = 'checkout' | 'registry' | 'local';

/**
 * Tells where the actorkit package at `own.root` comes from. A folder with `.git` and
 * `cli/main.ts` is a checkout. A package inside a `node_modules` folder is from a registry when
 * npm's hidden lockfile there (`node_modules/.package-lock.json`) records it with a registry
 * address, or with an integrity and no `file:`/link source (npm's `omit-lockfile-registry-resolved`
 * drops the address); everything else — a tarball, a folder, a global install npm keeps no lockfile
 * for — is `local`, so an actor rendered by it vendors the tarball rather than naming a version a
 * registry may not have.
 * @param own the package this CLI belongs to.
 */
export function actorkitOrigin(own: Pick<OwnPackage, 'root' | 'version'>): ActorkitOrigin {
  if (existsSync(join(own.root, '.git')) && existsSync(join(own.root, 'cli', 'main.ts'))) return 'checkout';
  const root = realpathSync(own.root);
  const marker = `${sep}node_modules${sep}`;
  const at = root.lastIndexOf(marker);
  if (at < 0) return 'local';
  const modules = root.slice(0, at + marker.length - 1);
  const entry = lockfileEntry(
    join(modules, '.package-lock.json'),
    relative(dirname(modules), root).split(sep).join('/'),
  );
  if (entry === undefined || entry.link === true) return 'local';
  if (typeof entry.resolved === 'string') return /^https?:/.test(entry.resolved) ? 'registry' : 'local';
  return typeof entry.integrity === 'string' ? 'registry' : 'local';
}

function lockfileEntry(
  lockfile: string,
  key: string,
): { resolved?: unknown; integrity?: unknown; link?: unknown } | undefined {
  try {
    const packages = (JSON.parse(readFileSync(lockfile, 'utf8')) as { packages?: Record<string, unknown> }).packages;
    const entry = packages?.[key];
    return typeof entry === 'object' && entry !== null ? entry : undefined;
  } catch {
    return undefined;
  }
}
