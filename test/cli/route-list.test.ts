import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, REPOSITORY_ROOT } from '../support/built-package.js';
import { temporaryFolder } from './support/template-repo.js';

// The route list of `new` and of the actor's README comes from the actor's own definition (the
// /openapi.json of the app it builds), and `validate --write` rewrites the README's list when
// the definition changes. Runs the built binary on an actor nobody installed.

const BINARY = join(REPOSITORY_ROOT, 'dist', 'cli', 'main.js');
const folder = temporaryFolder();
const env = { PATH: process.env.PATH, HOME: folder.dir };
const actorDir = join(folder.dir, 'demo');
const readme = () => readFileSync(join(actorDir, 'README.md'), 'utf8');

/** The README's generated route section: the fenced text between the markers. */
function readmeRoutes(): string {
  const section =
    /<!-- actorkit:option-routes:start -->\n```text\n([\s\S]*?)\n```\n<!-- actorkit:option-routes:end -->/.exec(
      readme(),
    );
  expect(section, readme()).not.toBeNull();
  return section?.[1] ?? '';
}

function actorkit(...args: string[]) {
  const result = spawnSync(process.execPath, [BINARY, ...args], {
    cwd: folder.dir,
    env,
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

beforeAll(() => {
  ensureBuilt();
}, 180_000);
afterAll(() => folder.cleanup());

describe('the route list of new and of the README follows the definition', () => {
  it('new prints the list it writes into the README', () => {
    const created = actorkit('new', 'demo', actorDir, '--defaults');
    expect(created.code, created.stderr).toBe(0);
    expect(readmeRoutes()).toContain('your options add none');
    expect(created.stdout).toContain(readmeRoutes());
  });

  it('validate --write rewrites the list after the definition turns an option on, once', () => {
    const actorFile = join(actorDir, 'src', 'actor.ts');
    const source = readFileSync(actorFile, 'utf8');
    expect(source).toContain('exposeMcp: false');
    writeFileSync(actorFile, source.replace('exposeMcp: false', 'exposeMcp: true'));

    const checked = actorkit('validate', actorDir);
    expect(checked.code).toBe(1);
    expect(readmeRoutes(), 'validate without --write changes nothing').toContain('your options add none');

    const written = actorkit('validate', '--write', actorDir);
    expect(written.stdout).toContain(`wrote the route list in ${join(actorDir, 'README.md')}`);
    expect(written.code, written.stdout).toBe(0);
    const lines = readmeRoutes().split('\n');
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/^ {2}POST {3}\/mcp {2}\S/),
      expect.stringMatching(/^ {2}DELETE \/mcp {2}\S/),
    ]);

    const again = actorkit('validate', '--write', actorDir);
    expect(again.stdout).not.toContain('wrote the route list');
    expect(again.code).toBe(0);
  });
});
