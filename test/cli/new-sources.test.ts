import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { runCli } from '../../cli/run-cli.js';
import { memoryIo } from './support/memory-io.js';
import { createTemplateRepository, gitIn, temporaryFolder } from './support/template-repo.js';

// A bundled render packs this checkout into the actor (npm pack): give it time on a busy machine.
vi.setConfig({ testTimeout: 180_000 });

const folder = temporaryFolder();
let repo: { dir: string; commits: Record<string, string> };
let counter = 0;

beforeAll(() => {
  repo = createTemplateRepository(folder.dir);
});
afterAll(() => folder.cleanup());

/** Runs `actorkit new` in the temp folder and returns the rendered VERSION and answers file. */
async function renderWith(args: string[], env: Record<string, string | undefined> = {}) {
  const target = `actor-${++counter}`;
  const run = memoryIo({ cwd: folder.dir, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } });
  const code = await runCli(['new', 'weather', target, '--defaults', ...args], run);
  const versionPath = join(folder.dir, target, 'VERSION');
  const version = existsSync(versionPath) ? readFileSync(versionPath, 'utf8').trim() : undefined;
  const answers =
    code === 0 ? parse(readFileSync(join(folder.dir, target, '.actorkit-answers.yml'), 'utf8')) : undefined;
  return { code, version, answers, stdout: run.stdout(), stderr: run.stderr() };
}

describe('actorkit new: template sources (DESIGN §8)', () => {
  it('renders ACTORKIT_TEMPLATE_REPO at its highest release tag: v0.10.0 beats v0.9.0, rc skipped', async () => {
    const result = await renderWith([], { ACTORKIT_TEMPLATE_REPO: repo.dir });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.version).toBe('v0.10.0');
    expect(result.answers).toMatchObject({
      source: 'repository',
      location: repo.dir,
      ref: 'v0.10.0',
      commit: repo.commits['v0.10.0'],
    });
  });

  it('accepts ACTORKIT_TEMPLATE_REPO as a path relative to the working folder', async () => {
    const result = await renderWith([], { ACTORKIT_TEMPLATE_REPO: 'template-repo' });
    expect(result.code).toBe(0);
    expect(result.version).toBe('v0.10.0');
  });

  it.each([
    ['a tag', 'v0.2.0', 'v0.2.0'],
    ['a prerelease tag, when pinned', 'v1.0.0-rc.1', 'v1.0.0-rc.1'],
    ['a branch of the repository', 'feature', 'feature-branch'],
  ])('--ref pins %s', async (_what, ref, version) => {
    const result = await renderWith(['--ref', ref], { ACTORKIT_TEMPLATE_REPO: repo.dir });
    expect(result.code).toBe(0);
    expect(result.version).toBe(version);
    expect(result.answers).toMatchObject({ source: 'repository', ref });
    expect(result.answers.commit).toMatch(/^[0-9a-f]{40}$/);
  });

  it('--ref pins a commit SHA and records it as the resolved commit', async () => {
    const sha = repo.commits['v0.9.0'] as string;
    const result = await renderWith([`--ref=${sha.slice(0, 10)}`], { ACTORKIT_TEMPLATE_REPO: repo.dir });
    expect(result.code).toBe(0);
    expect(result.version).toBe('v0.9.0');
    expect(result.answers).toMatchObject({ ref: sha.slice(0, 10), commit: sha });
  });

  it('--local renders the checkout at HEAD, even with the repository variable set', async () => {
    const result = await renderWith(['--local', repo.dir], { ACTORKIT_TEMPLATE_REPO: '/nonexistent/elsewhere' });
    expect(result.code).toBe(0);
    expect(result.version).toBe('main-unreleased');
    expect(result.answers).toMatchObject({
      source: 'local',
      location: repo.dir,
      ref: 'HEAD',
      commit: repo.commits['main-unreleased'],
    });
    expect(result.stderr).toBe('');
  });

  it('--local warns about a dirty working tree and renders the last commit without the changes', async () => {
    const versionFile = join(repo.dir, 'VERSION');
    writeFileSync(versionFile, 'uncommitted\n');
    try {
      const result = await renderWith(['--local', repo.dir]);
      expect(result.code).toBe(0);
      expect(result.version).toBe('main-unreleased');
      expect(result.stderr).toMatch(
        /^warning: .*template-repo has uncommitted changes; rendering the last commit \(HEAD [0-9a-f]{12}\)/,
      );
    } finally {
      gitIn(repo.dir, 'checkout', '--quiet', '--', 'VERSION');
    }
  });

  it('--local with --ref renders that ref of the local checkout', async () => {
    const result = await renderWith(['--local', repo.dir, '--ref', 'feature']);
    expect(result.code).toBe(0);
    expect(result.version).toBe('feature-branch');
    expect(result.answers).toMatchObject({ source: 'local', ref: 'feature', commit: repo.commits['feature-branch'] });
  });

  it('falls back to the template bundled at <package root>/templates/actor', async () => {
    const { ownPackage } = await import('../../cli/package-root.js');
    const run = memoryIo({ cwd: folder.dir });
    const code = await runCli(['new', 'weather', `actor-${++counter}`, '--defaults', '--json'], run);
    const result = JSON.parse(run.stdout());
    expect(code).toBe(0);
    expect(result.source).toEqual({
      kind: 'bundled',
      location: `actorkit@${ownPackage().version}/templates/actor`,
      ref: null,
      commit: null,
    });
    expect(result.files).toEqual(
      expect.arrayContaining(['Dockerfile', 'src/actor.ts', 'src/platform/config.json', 'package.json']),
    );
  });

  it('renders the bundled template when the repository has no release tag, and says so', async () => {
    const bare = join(folder.dir, 'untagged');
    gitIn(folder.dir, 'init', '--quiet', '--initial-branch=main', bare);
    writeFileSync(join(bare, 'template.yml'), 'actor_name: x\n');
    gitIn(bare, 'add', '--all');
    gitIn(bare, '-c', 'user.name=a', '-c', 'user.email=a@b', 'commit', '--quiet', '-m', 'init');
    gitIn(bare, 'tag', 'v2.0.0-beta.1');
    const result = await renderWith([], { ACTORKIT_TEMPLATE_REPO: bare });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`warning: template repository ${bare} not usable (has no release tag`);
    expect(result.answers).toMatchObject({ source: 'bundled' });
  });

  it('refuses (exit 2) a --ref the repository does not have', async () => {
    const result = await renderWith(['--ref', 'v9.9.9'], { ACTORKIT_TEMPLATE_REPO: repo.dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("has no tag, branch or commit 'v9.9.9'");
  });

  it('refuses (exit 2) --ref without a template repository', async () => {
    const result = await renderWith(['--ref', 'v0.2.0']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--ref v0.2.0 needs a template repository');
  });

  it('refuses (exit 2) --local on a folder that is not a git checkout', async () => {
    const result = await renderWith(['--local', '/']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is not a git checkout');
  });
});
