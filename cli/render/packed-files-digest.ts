import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Bumped when what the digest covers changes, so no entry keyed the old way is ever taken. */
const DIGEST_FORMAT = 'actorkit-packed-files-v1';

/** Root entries `npm pack` never packs (npm-packlist's strict rules); the tarball cache lives in `node_modules`. */
const NEVER_PACKED_AT_ROOT = new Set([
  '.git',
  'node_modules',
  'package-lock.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'bun.lockb',
]);

/** A `files` entry npm reads as a glob rather than a path. */
const GLOB = /[*?[\]{}!]/;

/** The package.json fields that decide which files `npm pack` takes. */
interface PackedManifest {
  readonly files?: unknown;
  readonly main?: unknown;
  readonly browser?: unknown;
  readonly bin?: unknown;
  readonly bundleDependencies?: unknown;
  readonly bundledDependencies?: unknown;
}

/**
 * A SHA-256 of every file `npm pack` could put into the tarball of the package at `root` (see
 * {@link filesNpmPackMayTake}): the path, executable bit and bytes of each. A change to anything
 * that ends up in the tarball changes the digest; a change elsewhere (sources, tests, docs) does
 * not. `undefined` when {@link filesNpmPackMayTake} cannot tell.
 * @param root the package folder.
 */
export function packedFilesDigest(root: string): string | undefined {
  const files = filesNpmPackMayTake(root);
  if (files === undefined) return undefined;
  const hash = createHash('sha256').update(DIGEST_FORMAT);
  for (const [path, executable] of [...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const bytes = readFileSync(join(root, path));
    hash.update(`\0${path}\0${executable ? 'x' : '-'}\0${bytes.length}\0`).update(bytes);
  }
  return hash.digest('hex');
}

/**
 * The regular files `npm pack` could take from the package at `root` (POSIX paths relative to it,
 * each with its executable bit): every file under the `files` entries and `main`, `browser` and
 * `bin`, and every file at the top of the package (package.json, README, LICENSE, .npmignore,
 * .npmrc…) but lock files. That is a superset of what npm-packlist packs (it never packs a file
 * outside it, nor a symbolic link); ignore files narrow what npm takes, and count themselves.
 * Without a `files` list, or with a glob in it, every file of the package but `.git` and
 * `node_modules`. `undefined` when the tarball would carry `bundleDependencies` (they live in
 * `node_modules`) or package.json cannot be read.
 * @param root the package folder.
 */
export function filesNpmPackMayTake(root: string): ReadonlyMap<string, boolean> | undefined {
  const manifest = readManifest(root);
  if (manifest === undefined || manifest.bundleDependencies !== undefined || manifest.bundledDependencies !== undefined)
    return undefined;
  const files = new Map<string, boolean>();
  const listed = listedPaths(manifest);
  for (const name of readdirSync(root)) {
    if (NEVER_PACKED_AT_ROOT.has(name)) continue;
    if (listed === undefined || lstatSync(join(root, name)).isFile()) collectFiles(root, name, files);
  }
  for (const path of listed ?? []) collectFiles(root, path, files);
  return files;
}

function readManifest(root: string): PackedManifest | undefined {
  try {
    const manifest: unknown = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    return typeof manifest === 'object' && manifest !== null ? (manifest as PackedManifest) : undefined;
  } catch {
    return undefined;
  }
}

/** The paths `files`, `main`, `browser` and `bin` name, relative to the root; `undefined` means "the whole package". */
function listedPaths(manifest: PackedManifest): string[] | undefined {
  if (!Array.isArray(manifest.files)) return undefined;
  const bins =
    typeof manifest.bin === 'string'
      ? [manifest.bin]
      : typeof manifest.bin === 'object' && manifest.bin !== null
        ? Object.values(manifest.bin)
        : [];
  const paths = [...manifest.files, manifest.main, manifest.browser, ...bins].filter(
    (path): path is string => typeof path === 'string',
  );
  if (paths.some((path) => GLOB.test(path))) return undefined;
  return paths
    .map((path) => path.replace(/^\.?\/+/, '').replace(/\/+$/, ''))
    .filter((path) => path !== '' && path !== '.');
}

/** Adds `path` (relative to `root`) and its executable bit when it is a regular file, or every regular file below it when it is a folder. */
function collectFiles(root: string, path: string, into: Map<string, boolean>): void {
  const stat = lstatSync(join(root, path), { throwIfNoEntry: false });
  if (stat?.isFile()) into.set(path, (stat.mode & 0o111) !== 0);
  else if (stat?.isDirectory())
    for (const name of readdirSync(join(root, path))) collectFiles(root, `${path}/${name}`, into);
}
