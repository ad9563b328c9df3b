import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { temporaryFolder, writeFiles } from '../cli/support/template-repo.js';
import { contextFilesUnder, readBuildContext } from './build-context.js';

const folder = temporaryFolder('actorkit-build-context-');
afterAll(() => folder.cleanup());

function context(name: string, files: Record<string, string>) {
  writeFiles(join(folder.dir, name), files);
  return readBuildContext(join(folder.dir, name));
}

describe('readBuildContext', () => {
  it('matches COPY wildcards at the context root as Docker does, with or without a match', () => {
    const withLock = context('with-lock', {
      'package.json': '{}',
      'package-lock.json': '{}',
      'src/package-lock.json': '{}',
    });
    expect(withLock.match('package-lock.json*')).toEqual(['package-lock.json']);
    expect(withLock.match('package*.json')).toEqual(['package-lock.json', 'package.json']);
    const withoutLock = context('without-lock', { 'package.json': '{}' });
    expect(withoutLock.match('package-lock.json*')).toEqual([]);
    expect(withoutLock.match('./package.json')).toEqual(['package.json']);
    expect(withoutLock.match('missing.json')).toEqual([]);
  });

  it('applies .dockerignore with Docker rules: anchored at the root, folders and their contents, ! exceptions', () => {
    const built = context('ignored', {
      '.dockerignore': 'node_modules\n*.log\nsrc/secret*\n!src/secret-but-needed.ts\n',
      'app.log': '',
      'node_modules/x/index.js': '',
      'src/a.ts': '',
      'src/nested/b.log': '',
      'src/secret.ts': '',
      'src/secret-but-needed.ts': '',
    });
    expect(built.includes('app.log')).toBe(false);
    expect(built.includes('node_modules/x/index.js')).toBe(false);
    expect(built.includes('src/nested/b.log')).toBe(true);
    expect(built.match('app.log')).toEqual([]);
    expect(contextFilesUnder(built, join(built.dir, 'src')).sort()).toEqual([
      'src/a.ts',
      'src/nested/b.log',
      'src/secret-but-needed.ts',
    ]);
  });
});
