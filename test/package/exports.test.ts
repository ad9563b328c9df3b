import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureBuilt, REPOSITORY_ROOT } from '../support/built-package.js';

interface ExportTarget {
  readonly types: string;
  readonly default: string;
}

const manifest = JSON.parse(readFileSync(join(REPOSITORY_ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, ExportTarget | string>;
};
const entries = Object.entries(manifest.exports).filter(
  (entry): entry is [string, ExportTarget] => typeof entry[1] !== 'string',
);
/** `actorkit/sdk` for `./sdk`, `actorkit` for `.`. */
const specifier = (subpath: string) => (subpath === '.' ? 'actorkit' : `actorkit/${subpath.slice(2)}`);
/** The source file of a built entry: `./dist/src/sdk/index.js` → `src/sdk/index.ts`. */
const sourceOf = (built: string) => built.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts');

describe('the package entries (package.json exports)', () => {
  it('compile in place: the type checker and vitest resolve each subpath to the source file dist/ is built from', () => {
    const tsconfig = readFileSync(join(REPOSITORY_ROOT, 'tsconfig.json'), 'utf8');
    const vitestConfig = readFileSync(join(REPOSITORY_ROOT, 'vitest.config.ts'), 'utf8');
    for (const [subpath, target] of entries) {
      const source = sourceOf(target.default);
      expect(existsSync(join(REPOSITORY_ROOT, source)), source).toBe(true);
      if (['./bun', './deno'].includes(subpath)) continue; // typed by their own runtimes' tests
      expect(tsconfig, subpath).toContain(`"${specifier(subpath)}": ["./${source}"]`);
      expect(vitestConfig, subpath).toContain(`source('./${source}')`);
    }
  });

  it('load from dist/ by the package name, as a user imports them', () => {
    ensureBuilt();
    const loadable = entries.filter(([subpath]) => !['./bun', './deno'].includes(subpath));
    for (const [, target] of entries) expect(existsSync(join(REPOSITORY_ROOT, target.types)), target.types).toBe(true);
    const script = `const names = {};
for (const name of ${JSON.stringify(loadable.map(([subpath]) => specifier(subpath)))}) names[name] = Object.keys(await import(name)).length;
console.log(JSON.stringify(names));`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: REPOSITORY_ROOT,
      encoding: 'utf8',
    });
    expect(child.stderr).toBe('');
    const counts = JSON.parse(child.stdout) as Record<string, number>;
    for (const [subpath] of loadable) expect(counts[specifier(subpath)], subpath).toBeGreaterThan(0);
  }, 120_000);
});
