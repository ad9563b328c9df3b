// `actorkit new` without --local renders the template repository actorkit names as its default
// (`actorkit.templateRepository` in its package.json) at its latest release tag, and falls back
// to the bundled template, saying so in one line, when that repository cannot be used.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// A bundled render packs this checkout into the actor (npm pack): give it time on a busy machine.
vi.setConfig({ testTimeout: 180_000 });
import { parse } from 'yaml';
import { runCli } from '../../cli/run-cli.js';
import { memoryIo } from './support/memory-io.js';
import { createTemplateRepository, gitIn, temporaryFolder } from './support/template-repo.js';

/** The `actorkit.templateRepository` the package.json of this run names; each test sets it. */
const packaged = vi.hoisted(() => ({ templateRepository: undefined as string | undefined }));

vi.mock('../../cli/package-root.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../cli/package-root.js')>();
  return {
    ...original,
    ownPackage: () => {
      const own = original.ownPackage();
      return packaged.templateRepository === undefined
        ? own
        : { ...own, templateRepository: packaged.templateRepository };
    },
  };
});

const folder = temporaryFolder();
let repo: { dir: string; commits: Record<string, string> };
let counter = 0;
/** A folder whose `git` records its arguments in `git-calls` and fails, put first on PATH. */
const recordingGit = join(folder.dir, 'recording-git');

beforeAll(() => {
  repo = createTemplateRepository(folder.dir);
  mkdirSync(recordingGit);
  writeFileSync(join(recordingGit, 'git'), `#!/bin/sh\necho "$@" >> '${join(folder.dir, 'git-calls')}'\nexit 1\n`);
  chmodSync(join(recordingGit, 'git'), 0o755);
});
afterAll(() => folder.cleanup());

/** Runs `actorkit new weather <target> --defaults ...args` with `defaultRepository` as actorkit's default. */
async function renderWith(
  defaultRepository: string | undefined,
  args: string[] = [],
  env: Record<string, string | undefined> = {},
) {
  packaged.templateRepository = defaultRepository;
  const target = `actor-${++counter}`;
  const run = memoryIo({ cwd: folder.dir, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } });
  const code = await runCli(['new', 'weather', target, '--defaults', ...args], run);
  const answersPath = join(folder.dir, target, '.actorkit-answers.yml');
  const answers = code === 0 ? parse(readFileSync(answersPath, 'utf8')) : undefined;
  const versionPath = join(folder.dir, target, 'VERSION');
  const version = existsSync(versionPath) ? readFileSync(versionPath, 'utf8').trim() : undefined;
  return { code, version, answers, stdout: run.stdout(), stderr: run.stderr() };
}

describe('actorkit new: the default template repository', () => {
  it('renders the default repository at its latest release tag and records it', async () => {
    const result = await renderWith(repo.dir);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.version).toBe('v0.10.0');
    expect(result.answers).toMatchObject({ source: 'repository', location: repo.dir, ref: 'v0.10.0' });
  });

  it('lets ACTORKIT_TEMPLATE_REPO override the default', async () => {
    const other = join(folder.dir, 'other-template');
    gitIn(folder.dir, 'clone', '--quiet', repo.dir, other);
    const result = await renderWith('/nonexistent/default', [], { ACTORKIT_TEMPLATE_REPO: other });
    expect(result.code).toBe(0);
    expect(result.answers).toMatchObject({ source: 'repository', location: other, ref: 'v0.10.0' });
  });

  it('falls back to the bundled template when the repository does not exist, saying so in one line', async () => {
    const missing = join(folder.dir, 'no-such-repository');
    const result = await renderWith(missing);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stderr.split('\n').filter((line) => line.startsWith('warning:'));
    expect(lines).toEqual([
      expect.stringMatching(
        new RegExp(
          `^warning: template repository ${missing} not usable \\(git clone failed: .*does not exist.*\\); rendered the bundled actorkit@\\S+/templates/actor$`,
        ),
      ),
    ]);
    expect(result.version).toBeUndefined();
    expect(result.answers).toMatchObject({ source: 'bundled', ref: null, commit: null });
  });

  it('falls back when the host is unknown, and when the repository has no release tag', async () => {
    const unknownHost = await renderWith('https://template-host.invalid/actorkit/actor-template.git');
    expect(unknownHost.code, unknownHost.stderr).toBe(0);
    expect(unknownHost.stderr).toMatch(
      /^warning: template repository https:\/\/template-host\.invalid\/actorkit\/actor-template\.git not usable \(git clone failed: [^\n]*\); rendered the bundled /m,
    );
    expect(unknownHost.answers).toMatchObject({ source: 'bundled' });

    const untagged = join(folder.dir, 'untagged');
    gitIn(folder.dir, 'clone', '--quiet', repo.dir, untagged);
    for (const tag of gitIn(untagged, 'tag', '--list').split('\n')) gitIn(untagged, 'tag', '-d', tag);
    const result = await renderWith(untagged);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`warning: template repository ${untagged} not usable (has no release tag`);
    expect(result.answers).toMatchObject({ source: 'bundled' });
  });

  it('--offline renders the bundled template without calling git', async () => {
    const result = await renderWith(repo.dir, ['--offline'], {
      PATH: `${recordingGit}:${process.env.PATH}`,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.answers).toMatchObject({ source: 'bundled' });
    expect(existsSync(join(folder.dir, 'git-calls'))).toBe(false);
  });

  it('refuses (exit 2) --offline with --ref, and renders --offline with --local from the checkout', async () => {
    const refused = await renderWith(repo.dir, ['--offline', '--ref', 'v0.9.0']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--ref v0.9.0 needs the template repository, which --offline skips');
    const local = await renderWith(repo.dir, ['--offline', '--local', repo.dir, '--ref', 'v0.9.0']);
    expect(local.code, local.stderr).toBe(0);
    expect(local.version).toBe('v0.9.0');
    expect(local.answers).toMatchObject({ source: 'local', ref: 'v0.9.0' });
  });

  it('does not fall back from a --ref the user names: the repository must answer', async () => {
    const result = await renderWith(join(folder.dir, 'no-such-repository'), ['--ref', 'v0.9.0']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('git clone failed');
  });
});
