// docs/reference/ is TypeDoc's markdown of every public export (typedoc.json: the entry points of
// package.json `exports`), checked in so it reads on GitHub and in a clone. This regenerates it
// into a scratch folder and fails when the checked-in copy differs: run `npm run docs:reference`.
// TypeDoc's validation is on (typedoc.json): an export without a doc comment, or a link to what
// is not documented, fails the run, so every public export keeps one.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '../support/built-package.js';

const scratch = mkdtempSync(join(tmpdir(), 'actorkit-reference-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Every file under `dir`, relative to it, sorted. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => statSync(join(dir, name)).isFile())
    .map((name) => relative(dir, join(dir, name)))
    .sort();
}

describe('docs/reference (npm run docs:reference)', () => {
  it('is what TypeDoc makes of the public exports now, with every export documented', () => {
    execFileSync(join(REPOSITORY_ROOT, 'node_modules', '.bin', 'typedoc'), ['--out', scratch], {
      cwd: REPOSITORY_ROOT,
      stdio: 'pipe',
    });
    const checkedIn = join(REPOSITORY_ROOT, 'docs', 'reference');
    expect(filesUnder(checkedIn)).toEqual(filesUnder(scratch));
    for (const file of filesUnder(scratch))
      expect(
        readFileSync(join(checkedIn, file), 'utf8'),
        `docs/reference/${file} is stale: npm run docs:reference`,
      ).toBe(readFileSync(join(scratch, file), 'utf8'));
  }, 120_000);
});
