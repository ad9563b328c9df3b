import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, REPOSITORY_ROOT } from '../support/built-package.js';
import { createEvolvingTemplate, PROMPT_LINE_V1_1, V1_1 } from './support/evolving-template.js';
import { gitIn, temporaryFolder } from './support/template-repo.js';

const BINARY = join(REPOSITORY_ROOT, 'dist', 'cli', 'main.js');
const folder = temporaryFolder('actorkit-update-e2e-');
let template: ReturnType<typeof createEvolvingTemplate>;

beforeAll(() => {
  ensureBuilt();
  template = createEvolvingTemplate(folder.dir);
});
afterAll(() => folder.cleanup());

function run(command: string, args: string[], cwd: string, timeout = 120_000) {
  const env = { ...process.env, CI: 'true', ACTORKIT_TEMPLATE_REPO: template.dir };
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout, env });
  return {
    code: result.status,
    stdout: result.stdout,
    output: `${result.stdout}${result.stderr}`.replace(/\x1b\[[0-9;]*m/g, ''),
  };
}

describe('the built binary: new at v1.0.0, author edits, update to v1.1.0, then the actor’s own checks', () => {
  it('updates cleanly, validates with its own installed actorkit and passes its own npm test', () => {
    const created = run(
      process.execPath,
      [BINARY, 'new', 'Weather Bot', 'weather', '--defaults', '--ref', 'v1.0.0'],
      folder.dir,
    );
    expect(created.code, created.output).toBe(0);
    const actor = join(folder.dir, 'weather');
    gitIn(actor, 'init', '--quiet', '--initial-branch=main');
    gitIn(actor, 'add', '--all');
    gitIn(actor, 'commit', '--quiet', '-m', 'rendered at v1.0.0');
    const prompt = join(actor, 'src/prompts/system-prompt.ts');
    writeFileSync(prompt, readFileSync(prompt, 'utf8').replace(/^.*\n/, '/** Rules of the weather desk. */\n'));
    gitIn(actor, 'commit', '--quiet', '--all', '-m', 'author edit');

    const updated = run(process.execPath, [BINARY, 'update', 'weather', '--defaults'], folder.dir);
    expect(updated.code, updated.output).toBe(0);
    expect(readFileSync(prompt, 'utf8')).toContain(PROMPT_LINE_V1_1);
    expect(JSON.parse(readFileSync(join(actor, 'package.json'), 'utf8')).scripts.typecheck).toBe('tsc --noEmit');
    expect(gitIn(actor, 'status', '--porcelain')).toContain(`?? ${V1_1.addedFile}`);

    const installed = run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], actor, 240_000);
    expect(installed.code, installed.output).toBe(0);
    const validated = run(join(actor, 'node_modules', '.bin', 'actorkit'), ['validate', '.'], actor);
    expect(validated.output).toMatch(/using the actor's own actorkit/i);
    expect(validated.output).toMatch(/OK\n$/);
    expect(validated.code).toBe(0);
    const tested = run('npm', ['test'], actor, 180_000);
    expect(tested.output).toMatch(/Tests\s+\d+ passed/);
    expect(tested.code, tested.output).toBe(0);
  }, 480_000);
});
