import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDS_VALID } from '../support/ends-valid.js';
import { ensureBuilt, REPOSITORY_ROOT } from '../support/built-package.js';
import { temporaryFolder } from './support/template-repo.js';

const BINARY = join(REPOSITORY_ROOT, 'dist', 'cli', 'main.js');
// Under the system's temporary folder: no node_modules above the actor lends it anything.
const folder = temporaryFolder();
const env = { PATH: process.env.PATH, HOME: folder.dir };

beforeAll(() => {
  ensureBuilt();
  expect(existsSync(BINARY)).toBe(true);
}, 180_000);
afterAll(() => folder.cleanup());

function actorkit(...args: string[]) {
  const result = spawnSync(process.execPath, [BINARY, ...args], {
    cwd: folder.dir,
    env,
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('actorkit validate on an actor nobody installed yet', () => {
  it('new then validate prints OK with no npm install in between, using the CLI’s own actorkit and valibot', () => {
    expect(actorkit('new', 'demo', join(folder.dir, 'demo'), '--defaults').code).toBe(0);
    expect(existsSync(join(folder.dir, 'demo', 'node_modules'))).toBe(false);
    const checked = actorkit('validate', join(folder.dir, 'demo'));
    expect(checked.stderr).toBe('');
    expect(checked.stdout).toContain("using the CLI's own (none installed for the actor) actorkit");
    expect(checked.stdout).toMatch(ENDS_VALID);
    expect(checked.code).toBe(0);
  });

  it('an actor rendered with every option on validates too', () => {
    const dir = join(folder.dir, 'every');
    const created = actorkit(
      'new',
      'every',
      dir,
      '--defaults',
      '--data',
      'include_panel=true',
      '--data',
      'fleet_mesh=true',
      '--data',
      'integration_type=n8n',
    );
    expect(created.code).toBe(0);
    const checked = actorkit('validate', dir);
    expect(checked.stdout).toMatch(/OK\n$/);
    expect(checked.code).toBe(0);
  });

  it('a package the CLI does not have either still gets the npm install hint', () => {
    const dir = join(folder.dir, 'extra');
    expect(actorkit('new', 'extra', dir, '--defaults').code).toBe(0);
    const actorFile = join(dir, 'src', 'actor.ts');
    writeFileSync(actorFile, `import 'left-pad-nowhere';\n${readFileSync(actorFile, 'utf8')}`);
    const checked = actorkit('validate', dir);
    expect(checked.code).toBe(1);
    expect(checked.stdout).toContain(
      "- [emitter] /: package 'left-pad-nowhere' is not installed (imported from src/actor.ts) (hint: it is not in package.json: run `npm install left-pad-nowhere` in",
    );
  });
});
