import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { VerbMeta } from '../../cli/commands/_shared.js';
import { commands } from '../../cli/commands/index.js';
import { runCli } from '../../cli/run-cli.js';
import { ENDS_VALID } from '../support/ends-valid.js';
import { ensureBuilt } from '../support/built-package.js';
import { withoutPackingLine } from '../support/packing-line.js';
import { createEvolvingTemplate, PROMPT_LINE_V1, PROMPT_LINE_V1_1, V1_1 } from './support/evolving-template.js';
import { memoryIo } from './support/memory-io.js';
import { treeHash } from './support/tree-hash.js';
import { runInTerminal } from './support/pseudo-terminal.js';
import { createTemplateRepository, gitIn, temporaryFolder } from './support/template-repo.js';

const folder = temporaryFolder('actorkit-update-test-');
let template: ReturnType<typeof createEvolvingTemplate>;
/** The actor `new` rendered at v1.0.0, committed; each test works on a copy. */
let pristine: string;
let copies = 0;

const PROMPT_FILE = 'src/prompts/system-prompt.ts';
const AUTHOR_COMMENT = '/** Rules the code enforces — tuned by the author for the weather desk. */';

function env(): Record<string, string | undefined> {
  return { PATH: process.env.PATH, HOME: process.env.HOME, ACTORKIT_TEMPLATE_REPO: template.dir };
}

async function actorkit(args: string[], cwd = folder.dir, extraEnv: Record<string, string | undefined> = {}) {
  const io = memoryIo({ cwd, env: { ...env(), ...extraEnv } });
  const code = await runCli(args, io);
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

/** A committed copy of the v1.0.0 actor, after `edits` (committed too, unless `commit` is false). */
function actorCopy(edits: (dir: string) => void = () => {}, commit = true): string {
  const dir = join(folder.dir, `actor-${++copies}`);
  cpSync(pristine, dir, { recursive: true });
  edits(dir);
  if (commit) {
    gitIn(dir, 'add', '--all');
    gitIn(dir, 'commit', '--quiet', '--allow-empty', '-m', 'author edits');
  }
  return dir;
}

function replaceIn(path: string, from: string, to: string): void {
  const text = readFileSync(path, 'utf8');
  if (!text.includes(from)) throw new Error(`${path} does not contain ${from}`);
  writeFileSync(path, text.replace(from, to));
}

/** The author's usual edits: other lines than the template changes. */
function authorEditsOtherLines(dir: string): void {
  const prompt = join(dir, PROMPT_FILE);
  writeFileSync(prompt, readFileSync(prompt, 'utf8').replace(/^.*\n/, `${AUTHOR_COMMENT}\n`));
  replaceIn(join(dir, 'package.json'), '"version": "0.1.0"', '"version": "0.4.2"');
  rmSync(join(dir, V1_1.changedFile));
}

beforeAll(async () => {
  ensureBuilt();
  template = createEvolvingTemplate(folder.dir);
  const created = await actorkit(['new', 'Weather Bot', 'pristine', '--defaults', '--ref', 'v1.0.0']);
  expect(withoutPackingLine(created.stderr)).toBe('');
  expect(created.code).toBe(0);
  pristine = join(folder.dir, 'pristine');
  gitIn(pristine, 'init', '--quiet', '--initial-branch=main');
  gitIn(pristine, 'add', '--all');
  gitIn(pristine, 'commit', '--quiet', '-m', 'rendered at v1.0.0');
}, 120_000);
afterAll(() => folder.cleanup());

describe('actorkit update: the answers file records what reproduces the render', () => {
  it('records the source, ref, resolved commit, CLI version and the actorkit dependency it rendered with', () => {
    const record = parse(readFileSync(join(pristine, '.actorkit-answers.yml'), 'utf8'));
    expect(record).toMatchObject({
      source: 'repository',
      location: template.dir,
      ref: 'v1.0.0',
      commit: template.commits['v1.0.0'],
      actorkit_version: expect.any(String),
      rendered_with: { actorkit_dependency: expect.stringMatching(/^file:|^\^/) },
      answers: { actor_name: 'Weather Bot', actor_slug: 'weather-bot' },
    });
  });
});

describe('actorkit update: v1.0.0 → v1.1.0', () => {
  it('merges the template changes around the author edits in other lines (exit 0), then validates', async () => {
    const actor = actorCopy(authorEditsOtherLines);
    const result = await actorkit(['update', relative(folder.dir, actor), '--defaults']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('fetching the template');
    expect(result.stderr).toContain('rendering the recorded template v1.0.0');
    expect(result.stderr).toContain('merging ');
    expect(result.stdout).toContain(
      `template v1.0.0 (${template.commits['v1.0.0'].slice(0, 7)}) → v1.1.0 (${template.commits['v1.1.0'].slice(0, 7)})`,
    );
    expect(result.stdout).toMatch(/ {2}created {5}CHANGELOG\.md\n/);
    expect(result.stdout).toMatch(/ {2}merged {6}package\.json\n/);
    expect(result.stdout).toMatch(/ {2}merged {6}src\/prompts\/system-prompt\.ts\n/);
    expect(result.stdout).toMatch(/ {2}deleted {5}src\/main\.deno\.ts\n/);
    expect(result.stdout).toContain('kept        src/main.bun.ts (you deleted it, so it stays deleted');
    expect(result.stdout).toMatch(/OK\n$/);

    const prompt = readFileSync(join(actor, PROMPT_FILE), 'utf8');
    expect(prompt.startsWith(`${AUTHOR_COMMENT}\n`)).toBe(true);
    expect(prompt).toContain(PROMPT_LINE_V1_1);
    expect(prompt).not.toContain('<<<<<<<');
    const manifest = JSON.parse(readFileSync(join(actor, 'package.json'), 'utf8'));
    expect(manifest.version).toBe('0.4.2');
    expect(manifest.scripts.typecheck).toBe('tsc --noEmit');
    expect(readFileSync(join(actor, V1_1.addedFile), 'utf8')).toBe(
      '# Weather Bot changelog\n\n## 1.1.0\n\n- Rendered from template v1.1.0.\n',
    );
    expect(existsSync(join(actor, V1_1.deletedFile))).toBe(false);
    expect(existsSync(join(actor, V1_1.changedFile))).toBe(false);

    const record = parse(readFileSync(join(actor, '.actorkit-answers.yml'), 'utf8'));
    expect(record).toMatchObject({
      ref: 'v1.1.0',
      commit: template.commits['v1.1.0'],
      answers: { actor_name: 'Weather Bot', [V1_1.newQuestion]: 'Weather Bot changelog' },
    });

    const validated = await actorkit(['validate', relative(folder.dir, actor)]);
    expect(validated.stdout).toMatch(ENDS_VALID);
    expect(validated.code).toBe(0);
  }, 60_000);

  it('marks an author edit on the line the template changed with git-style conflict markers and exits 1', async () => {
    const actor = actorCopy((dir) =>
      replaceIn(
        join(dir, PROMPT_FILE),
        PROMPT_LINE_V1,
        "  'When a tool fails, apologise once and answer with what you know.',",
      ),
    );
    const result = await actorkit(['update', actor, '--defaults']);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/ {2}conflicted {2}src\/prompts\/system-prompt\.ts\n/);
    expect(result.stdout).toContain('1 conflict: edit src/prompts/system-prompt.ts');
    expect(result.stdout).toContain('actorkit validate --write');
    const prompt = readFileSync(join(actor, PROMPT_FILE), 'utf8');
    expect(prompt).toContain(
      [
        '<<<<<<< yours',
        "  'When a tool fails, apologise once and answer with what you know.',",
        '=======',
        PROMPT_LINE_V1_1,
        `>>>>>>> template v1.1.0 (${template.commits['v1.1.0'].slice(0, 7)})`,
      ].join('\n'),
    );
    // The rest of the update still happened, and the answers file moved on.
    expect(existsSync(join(actor, V1_1.addedFile))).toBe(true);
    expect(parse(readFileSync(join(actor, '.actorkit-answers.yml'), 'utf8')).ref).toBe('v1.1.0');
  }, 60_000);

  it('treats a file the template adds where the author already has a different one as a conflict', async () => {
    const actor = actorCopy((dir) => writeFileSync(join(dir, V1_1.addedFile), '# My own changelog\n'));
    const result = await actorkit(['update', actor, '--defaults', '--json']);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({
      status: 'failed',
      code: 'merge_conflicts',
      plan: { conflicted: [V1_1.addedFile], created: [] },
    });
    expect(readFileSync(join(actor, V1_1.addedFile), 'utf8')).toMatch(
      /^<<<<<<< yours\n# My own changelog\n=======\n# Weather Bot changelog\n/,
    );
  }, 60_000);

  it('keeps a file the template deleted when the author changed it', async () => {
    const actor = actorCopy((dir) => writeFileSync(join(dir, V1_1.deletedFile), '// my Deno entry\n'));
    const result = await actorkit(['update', actor, '--defaults', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).plan.kept).toContainEqual({
      path: V1_1.deletedFile,
      reason: 'the new template dropped it, but you changed it',
    });
    expect(readFileSync(join(actor, V1_1.deletedFile), 'utf8')).toBe('// my Deno entry\n');
  }, 60_000);

  it('--dry-run prints the plan and writes nothing', async () => {
    const actor = actorCopy(authorEditsOtherLines);
    const before = treeHash(actor);
    const text = await actorkit(['update', actor, '--defaults', '--dry-run']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^Plan to update /);
    expect(text.stdout).toContain('Dry run: nothing was written.');
    const json = await actorkit(['update', actor, '--defaults', '--dry-run', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      status: 'ok',
      dryRun: true,
      from: { ref: 'v1.0.0', commit: template.commits['v1.0.0'] },
      to: { ref: 'v1.1.0', commit: template.commits['v1.1.0'] },
      newQuestions: [V1_1.newQuestion],
      plan: {
        created: [V1_1.addedFile],
        updated: [],
        merged: ['package.json', PROMPT_FILE],
        conflicted: [],
        deleted: [V1_1.deletedFile],
        kept: [{ path: V1_1.changedFile, reason: expect.stringContaining('you deleted it') }],
      },
      validation: null,
    });
    expect(treeHash(actor)).toEqual(before);
    expect(gitIn(actor, 'status', '--porcelain')).toBe('');
  }, 60_000);

  it('refuses a dirty git working tree (exit 2) and changes nothing; --force goes ahead', async () => {
    const actor = actorCopy((dir) => writeFileSync(join(dir, 'notes.txt'), 'work in progress\n'), false);
    const before = treeHash(actor);
    const refused = await actorkit(['update', actor, '--defaults']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /error: .* has uncommitted changes \(\?\? notes\.txt\); commit or stash them first .* or pass --force\n/,
    );
    expect(treeHash(actor)).toEqual(before);
    const forced = await actorkit(['update', actor, '--defaults', '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(join(actor, 'notes.txt'), 'utf8')).toBe('work in progress\n');
  }, 60_000);

  it('without a terminal and without --defaults, lists the questions new in the target (exit 2); --data answers them', async () => {
    const actor = actorCopy();
    const refused = await actorkit(['update', actor]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `the template at v1.1.0 (${template.commits['v1.1.0'].slice(0, 7)}) asks a new question: ${V1_1.newQuestion}`,
    );
    const answered = await actorkit(['update', actor, '--data', `${V1_1.newQuestion}=Weather news`]);
    expect(answered.code, answered.stderr).toBe(0);
    expect(readFileSync(join(actor, V1_1.addedFile), 'utf8')).toMatch(/^# Weather news\n/);
  }, 60_000);

  it('at a terminal, asks only the question new in the target, offering its default', async () => {
    const actor = actorCopy();
    const result = await runInTerminal(['update', actor], {
      cwd: folder.dir,
      env: env(),
      steps: [{ after: `${V1_1.newQuestion} [Weather Bot changelog]: `, keys: 'Desk log\r' }],
      timeoutMs: 60_000,
    });
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain('  Title of CHANGELOG.md');
    expect(result.output).not.toMatch(/actor_slug.*: /);
    expect(readFileSync(join(actor, V1_1.addedFile), 'utf8')).toMatch(/^# Desk log\n/);
  }, 90_000);

  it('--data changes a recorded answer: the change reaches every file that uses it', async () => {
    const actor = actorCopy();
    const result = await actorkit([
      'update',
      actor,
      '--defaults',
      '--ref',
      'v1.0.0',
      '--data',
      'image_repo=registry.example.com/weather/bot',
      '--json',
    ]);
    expect(result.code, result.stdout).toBe(0);
    expect(JSON.parse(result.stdout).plan.updated).toContain('package.json');
    expect(JSON.parse(readFileSync(join(actor, 'package.json'), 'utf8')).actorkit.deployment.image_repo).toBe(
      'registry.example.com/weather/bot',
    );
    expect(readFileSync(join(actor, 'src/platform/config.json'), 'utf8')).toContain('registry.example.com/weather/bot');
  }, 60_000);

  it('its help example works as written in a folder holding ./weather', async () => {
    const meta = (await commands.update()).meta as VerbMeta;
    const cwd = join(folder.dir, 'example');
    cpSync(actorCopy(), join(cwd, 'weather'), { recursive: true });
    const [program, ...args] = meta.example.split(' ');
    expect(program).toBe('actorkit');
    const result = await actorkit(args, cwd);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Dry run: nothing was written.');
  }, 60_000);
});

describe('actorkit update: template sources', () => {
  it('updates an actor rendered from a --local checkout (with --trust: the checkout is named by the answers file only) to its highest release tag (v0.10.0 beats v0.9.0, the rc skipped); --ref pins another', async () => {
    mkdirSync(join(folder.dir, 'sources'));
    const repo = createTemplateRepository(join(folder.dir, 'sources'));
    const created = await actorkit([
      'new',
      'weather',
      'sources/local-actor',
      '--local',
      repo.dir,
      '--ref',
      'v0.2.0',
      '--defaults',
    ]);
    expect(created.code, created.stderr).toBe(0);
    const actor = join(folder.dir, 'sources', 'local-actor');
    expect(readFileSync(join(actor, 'VERSION'), 'utf8')).toBe('v0.2.0\n');
    const pinned = await actorkit(['update', actor, '--ref', 'v0.9.0', '--json', '--trust']);
    expect(pinned.code, pinned.stdout).toBe(0);
    expect(JSON.parse(pinned.stdout)).toMatchObject({
      to: { ref: 'v0.9.0', commit: repo.commits['v0.9.0'] },
      plan: { updated: ['VERSION'] },
      validation: null,
    });
    const latest = await actorkit(['update', actor, '--trust']);
    expect(latest.code, latest.stderr).toBe(0);
    expect(latest.stderr).toContain('is not in a git working tree');
    expect(readFileSync(join(actor, 'VERSION'), 'utf8')).toBe('v0.10.0\n');
    expect(parse(readFileSync(join(actor, '.actorkit-answers.yml'), 'utf8'))).toMatchObject({
      source: 'local',
      location: repo.dir,
      ref: 'v0.10.0',
      commit: repo.commits['v0.10.0'],
    });
    const again = await actorkit(['update', actor, '--trust']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('nothing to change');
  }, 60_000);
});

describe('actorkit update: refusals', () => {
  it.each([
    [
      'a folder without .actorkit-answers.yml',
      (dir: string) => rmSync(join(dir, '.actorkit-answers.yml')),
      'does not exist: only an actor rendered by `actorkit new` can be updated',
    ],
    [
      'a malformed answers file',
      (dir: string) => writeFileSync(join(dir, '.actorkit-answers.yml'), 'source: [\n'),
      'is not valid YAML',
    ],
    [
      'an answers file that names a repository but no commit',
      (dir: string) =>
        replaceIn(join(dir, '.actorkit-answers.yml'), `commit: ${template.commits['v1.0.0']}`, 'commit: null'),
      'records no commit to compare with',
    ],
  ])('refuses %s (exit 2)', async (_what, breakIt, message) => {
    const actor = actorCopy(breakIt);
    const result = await actorkit(['update', actor, '--defaults']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses a --ref the template does not have (exit 2) and bad usage (exit 2)', async () => {
    const actor = actorCopy();
    const unknown = await actorkit(['update', actor, '--ref', 'v9.9.9', '--defaults']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("has no tag, branch or commit 'v9.9.9'");
    const bad = await actorkit(['update', actor, '--frobnicate']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown option --frobnicate');
    const badData = await actorkit(['update', actor, '--data', 'nokey']);
    expect(badData.code).toBe(2);
    expect(badData.stderr).toContain("--data needs KEY=VALUE, got 'nokey'");
  }, 60_000);
});
