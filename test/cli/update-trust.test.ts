/**
 * `actorkit update` renders templates, and a template is code. The actor folder names the
 * template (`.actorkit-answers.yml`), so `update` asks before rendering one the user has not named
 * themselves: `--trust`, or a yes at a terminal; without either it refuses, naming the source.
 * Whatever the source, a render never writes outside its folder.
 */
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { runCli } from '../../cli/run-cli.js';
import { updateActor } from '../../cli/update/update-actor.js';
import { memoryIo } from './support/memory-io.js';
import { runInTerminal } from './support/pseudo-terminal.js';
import { gitIn, temporaryFolder } from './support/template-repo.js';
import { treeHash } from './support/tree-hash.js';
import { renderFirstRelease, templateRepoEnv, twoReleaseTemplate } from './support/two-release-template.js';

const folder = temporaryFolder('actorkit-update-trust-');
/** The template repository the user names in ACTORKIT_TEMPLATE_REPO. */
let trusted: string;
/** A template repository someone else chose: its v1.1.0 runs code that writes `marker` while it renders. */
let hostile: string;
let marker: string;
let pristine: string;
let copies = 0;

const env = () => templateRepoEnv(trusted);

async function actorkit(args: string[]) {
  const io = memoryIo({ cwd: folder.dir, env: env() });
  const code = await runCli(args, io);
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

/** Rewrites the actor's answers file with `changes`. */
function recordInAnswers(actor: string, changes: Record<string, unknown>): void {
  const path = join(actor, '.actorkit-answers.yml');
  writeFileSync(path, stringify({ ...parse(readFileSync(path, 'utf8')), ...changes }));
}

function actorCopy(): string {
  const dir = join(folder.dir, `actor-${++copies}`);
  cpSync(pristine, dir, { recursive: true });
  return dir;
}

beforeAll(async () => {
  trusted = twoReleaseTemplate(
    folder.dir,
    'trusted',
    { 'NOTES.md.njk': '{{ actor_name }} v1\n' },
    { 'NOTES.md.njk': '{{ actor_name }} v2\n' },
  );
  marker = join(folder.dir, 'written-by-the-template');
  const payload = `{{ range.constructor("process.getBuiltinModule('node:fs').writeFileSync('${marker}', 'pwned'); return 'ran'")() }}\n`;
  hostile = twoReleaseTemplate(
    folder.dir,
    'hostile',
    { 'NOTES.md.njk': '{{ actor_name }} v1\n' },
    { 'NOTES.md.njk': payload },
  );
  pristine = join(folder.dir, 'pristine');
  await renderFirstRelease(trusted, pristine, 'trusting');
}, 60_000);
afterAll(() => folder.cleanup());

/** A copy of the actor whose answers file was turned to the hostile repository. */
function hijackedActor(): string {
  rmSync(marker, { force: true });
  const actor = actorCopy();
  recordInAnswers(actor, { location: hostile, commit: gitIn(hostile, 'rev-parse', 'v1.0.0^{commit}') });
  return actor;
}

describe('actorkit update: whose template it renders', () => {
  it('renders the repository the user names in ACTORKIT_TEMPLATE_REPO without asking', async () => {
    const actor = actorCopy();
    const result = await actorkit(['update', actor]);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(join(actor, 'NOTES.md'), 'utf8')).toBe('trusting v2\n');
  });

  it('refuses (exit 2), without a terminal, a repository only the answers file names: the source is named, nothing runs, nothing is written', async () => {
    const actor = hijackedActor();
    const before = treeHash(actor);
    const result = await actorkit(['update', actor]);
    expect(existsSync(marker)).toBe(false);
    expect(treeHash(actor)).toEqual(before);
    expect(result.stderr).toContain(`the template repository ${hostile}`);
    expect(result.stderr).toContain('--trust');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.code).toBe(2);
  });

  it('refuses it as well with --dry-run (a dry run renders too)', async () => {
    const result = await actorkit(['update', hijackedActor(), '--dry-run']);
    expect(result.code).toBe(2);
    expect(existsSync(marker)).toBe(false);
  });

  it('refuses the template of another actorkit version for a bundled actor before fetching it (a committed .npmrc could choose it)', async () => {
    const actor = actorCopy();
    recordInAnswers(actor, {
      source: 'bundled',
      location: 'actorkit@0.0.9/templates/actor',
      ref: null,
      commit: null,
      actorkit_version: '0.0.9',
    });
    writeFileSync(join(actor, '.npmrc'), 'registry=http://127.0.0.1:9/\n');
    const result = await actorkit(['update', actor]);
    expect(result.stderr).toContain('the template of actorkit 0.0.9');
    expect(result.stderr).not.toContain('fetching');
    expect(result.code).toBe(2);
  }, 60_000);

  it('at a terminal, names the source and asks; no keeps everything as it was', async () => {
    const actor = hijackedActor();
    const before = treeHash(actor);
    const result = await runInTerminal(['update', actor], {
      cwd: folder.dir,
      env: env(),
      steps: [{ after: 'Render it? [y/N] ', keys: 'n\r' }],
      timeoutMs: 60_000,
    });
    expect(result.output).toContain(`the template repository ${hostile}`);
    expect(result.code, result.output).toBe(2);
    expect(existsSync(marker)).toBe(false);
    expect(treeHash(actor)).toEqual(before);
  }, 90_000);

  it('renders it after a yes at the terminal: the template runs as code, as documented', async () => {
    const result = await runInTerminal(['update', hijackedActor()], {
      cwd: folder.dir,
      env: env(),
      steps: [{ after: 'Render it? [y/N] ', keys: 'y\r' }],
      timeoutMs: 60_000,
    });
    expect(result.code, result.output).toBe(0);
    expect(readFileSync(marker, 'utf8')).toBe('pwned');
  }, 90_000);

  it('renders it with --trust, saying so on standard error', async () => {
    const result = await actorkit(['update', hijackedActor(), '--trust']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      `rendering the template repository ${hostile}, which .actorkit-answers.yml names (ACTORKIT_TEMPLATE_REPO does not): trusted with --trust`,
    );
    expect(readFileSync(marker, 'utf8')).toBe('pwned');
  });
});

describe('actorkit update: a trusted template still cannot write outside the actor', () => {
  const QUESTIONS = 'actor_name:\n  type: str\nplace:\n  type: str\n  default: nowhere\n';
  it.each([
    [
      'a folder whose name renders to ..',
      { '{{ ".." }}/escape.txt': 'out\n' },
      {},
      "renders to '..', which is outside the target folder",
    ],
    [
      'a file whose name renders to an absolute path',
      { '{{ place }}.njk': 'out\n' },
      {},
      'which is outside the target folder',
    ],
    ['a file that is a symbolic link out of the template', {}, { 'linked.txt': '/etc/hostname' }, 'symbolic link'],
  ])('refuses %s (nothing written inside or outside)', async (_what, added, links, message) => {
    const name = `escaping-${++copies}`;
    const repository = twoReleaseTemplate(
      folder.dir,
      name,
      { 'template.yml': QUESTIONS, 'NOTES.md': 'v1\n' },
      { 'template.yml': QUESTIONS, 'NOTES.md': 'v2\n', ...added },
      links,
    );
    const actor = join(folder.dir, `${name}-actor`);
    await renderFirstRelease(repository, actor, 'escaping', [`place=${join(folder.dir, `${name}-absolute`)}`]);
    const before = { actor: treeHash(actor), around: readdirSync(folder.dir).sort() };
    const result = await updateActor({
      actorDir: actor,
      trust: true,
      io: memoryIo({ cwd: folder.dir, env: templateRepoEnv(repository) }).io,
    });
    expect(result).toMatchObject({
      status: expect.stringMatching(/^(refused|failed)$/),
      message: expect.stringContaining(message),
    });
    expect(treeHash(actor)).toEqual(before.actor);
    expect(readdirSync(folder.dir).sort()).toEqual(before.around);
  });
});
