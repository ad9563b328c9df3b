import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { temporaryFolder, writeFiles } from '../../test/cli/support/template-repo.js';
import { filesNpmPackMayTake, packedFilesDigest } from './packed-files-digest.js';

const REPOSITORY_ROOT = resolve(import.meta.dirname, '../..');
const folder = temporaryFolder('actorkit-packed-digest-test-');
afterAll(() => folder.cleanup());
let counter = 0;

/** A package with packed and unpacked files, nested ignore files, a symbolic link and a bin outside `files`. */
function fixturePackage(
  manifest: Record<string, unknown> = { files: ['dist', 'NOTES.md'], bin: { fixture: './bin/run.js' } },
): string {
  const root = join(folder.dir, `package-${++counter}`);
  writeFiles(root, {
    'package.json': JSON.stringify({ name: 'fixture', version: '1.0.0', ...manifest }),
    'README.md': '# fixture\n',
    LICENSE: 'MIT\n',
    'NOTES.md': 'notes\n',
    '.npmrc': 'fund=false\n',
    'package-lock.json': '{}\n',
    'bin/run.js': '#!/usr/bin/env node\n',
    'dist/index.js': 'export const answer = 1;\n',
    'dist/deep/inner.js': 'export {};\n',
    'dist/deep/.npmignore': 'ignored.js\n',
    'dist/deep/ignored.js': 'export {};\n',
    'dist/node_modules/bundled/index.js': 'export {};\n',
    'src/index.ts': 'export const answer = 1;\n',
    'src/NOTES.md': 'not packed: a files entry without a slash names a root path\n',
    'node_modules/dep/index.js': 'export {};\n',
  });
  symlinkSync(join(root, 'src', 'index.ts'), join(root, 'dist', 'linked.ts'));
  return root;
}

/** What `npm pack` itself would take (`--dry-run`), as paths relative to the package. */
function npmPackList(root: string): string[] {
  const output = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return (JSON.parse(output) as { files: { path: string }[] }[])[0]!.files.map((file) => file.path);
}

describe('filesNpmPackMayTake: every file npm pack takes, and more only where that is cheap', () => {
  it.each([
    ['a files list with a folder, a root file, and a bin outside it', undefined],
    ['no files list, an .npmignore at the root', {}],
    ['a files list with a glob', { files: ['dist/**/*.js', '!dist/deep'] }],
  ])('holds every file npm pack --dry-run lists: %s', (_, manifest) => {
    const root = fixturePackage(manifest);
    if (manifest !== undefined && !('files' in manifest)) writeFileSync(join(root, '.npmignore'), 'src\n');
    const candidates = filesNpmPackMayTake(root)!;
    const packed = npmPackList(root);
    expect(packed.length).toBeGreaterThan(3);
    expect(packed.filter((path) => !candidates.has(path))).toEqual([]);
  });

  it('holds every file npm pack --dry-run lists for this checkout, and none of its sources or tests', () => {
    const candidates = filesNpmPackMayTake(REPOSITORY_ROOT)!;
    const packed = npmPackList(REPOSITORY_ROOT);
    expect(packed).toContain('dist/cli/main.js');
    expect(packed.filter((path) => !candidates.has(path))).toEqual([]);
    expect([...candidates.keys()].filter((path) => /^(src|cli|test|docs|node_modules)\//.test(path))).toEqual([]);
  }, 60_000);

  it('leaves out symbolic links (npm packs none), lock files, node_modules at the root, and unlisted folders', () => {
    const root = fixturePackage();
    const candidates = [...filesNpmPackMayTake(root)!.keys()];
    expect(candidates).toContain('dist/deep/ignored.js');
    expect(candidates).toContain('bin/run.js');
    expect(candidates).not.toContain('dist/linked.ts');
    expect(candidates).not.toContain('package-lock.json');
    expect(candidates.filter((path) => path.startsWith('node_modules/') || path.startsWith('src/'))).toEqual([]);
  });

  it.each([
    ['bundleDependencies', '{"name":"fixture","version":"1.0.0","bundleDependencies":["dep"]}'],
    ['bundledDependencies', '{"name":"fixture","version":"1.0.0","bundledDependencies":true}'],
    ['a package.json that is not JSON', '{ "name": '],
    ['a package.json that is not an object', '"fixture"'],
  ])('cannot tell (undefined) with %s', (_, manifest) => {
    const root = fixturePackage();
    writeFileSync(join(root, 'package.json'), manifest);
    expect(filesNpmPackMayTake(root)).toBeUndefined();
    expect(packedFilesDigest(root)).toBeUndefined();
  });
});

describe('packedFilesDigest', () => {
  it.each([
    [
      'the bytes of a packed file',
      (root: string) => writeFileSync(join(root, 'dist', 'index.js'), 'export const answer = 2;\n'),
    ],
    ['a new file in a packed folder', (root: string) => writeFileSync(join(root, 'dist', 'new.js'), '')],
    ['an executable bit', (root: string) => chmodSync(join(root, 'dist', 'index.js'), 0o755)],
    [
      'package.json',
      (root: string) =>
        writeFileSync(
          join(root, 'package.json'),
          JSON.stringify({ name: 'fixture', version: '1.0.1', files: ['dist', 'NOTES.md'] }),
        ),
    ],
    ['a new ignore file at the root', (root: string) => writeFileSync(join(root, '.npmignore'), 'dist/deep\n')],
    ['a nested ignore file', (root: string) => writeFileSync(join(root, 'dist', 'deep', '.npmignore'), 'inner.js\n')],
    [
      'a bin outside the files list',
      (root: string) => writeFileSync(join(root, 'bin', 'run.js'), '#!/usr/bin/env node\nrun();\n'),
    ],
    ['the README', (root: string) => writeFileSync(join(root, 'README.md'), '# fixture, renamed\n')],
    [
      'a file moving from one packed path to another',
      (root: string) => {
        writeFileSync(join(root, 'dist', 'index.js'), '');
        writeFileSync(join(root, 'dist', 'deep', 'inner.js'), 'export const answer = 1;\n');
      },
    ],
  ])('changes with %s', (_, change) => {
    const root = fixturePackage();
    const before = packedFilesDigest(root);
    expect(before).toMatch(/^[0-9a-f]{64}$/);
    change(root);
    expect(packedFilesDigest(root)).not.toBe(before);
  });

  it.each([
    ['a source file', (root: string) => writeFileSync(join(root, 'src', 'index.ts'), 'changed\n')],
    ['the lock file', (root: string) => writeFileSync(join(root, 'package-lock.json'), '{"changed":true}\n')],
    [
      'node_modules (where the cache lives)',
      (root: string) => mkdirSync(join(root, 'node_modules', '.cache', 'actorkit'), { recursive: true }),
    ],
    [
      'the target of a symbolic link',
      (root: string) => writeFileSync(join(root, 'src', 'index.ts'), 'changed through the link\n'),
    ],
    [
      "a file's modification time alone",
      (root: string) => writeFileSync(join(root, 'dist', 'index.js'), 'export const answer = 1;\n'),
    ],
  ])('stays the same with %s', (_, change) => {
    const root = fixturePackage();
    const before = packedFilesDigest(root);
    change(root);
    expect(packedFilesDigest(root)).toBe(before);
  });
});
