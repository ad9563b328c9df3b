import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Template Author',
  GIT_AUTHOR_EMAIL: 'author@example.com',
  GIT_COMMITTER_NAME: 'Template Author',
  GIT_COMMITTER_EMAIL: 'author@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

/** Runs git synchronously in `cwd` and returns its trimmed output. */
export function gitIn(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' }).trim();
}

/** A fresh temporary folder, removed by the returned `cleanup`. */
export function temporaryFolder(prefix = 'actorkit-cli-test-'): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Writes files (POSIX relative path → content) under `root`, creating folders. */
export function writeFiles(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    const target = join(root, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
}

/** A template.yml with the questions most tests use. */
export const BASIC_TEMPLATE_YML = `
actor_name:
  type: str
  help: Name of the actor
  validator:
    regex: "^[a-z][a-z0-9-]*$"
    message: lower-case letters, digits and dashes, starting with a letter
domain:
  type: choice
  choices: [weather, finance]
  default: weather
replicas:
  type: int
  default: 1
include_panel:
  type: bool
  default: false
panel_title:
  type: str
  default: "{{ actor_name }} panel"
  when: include_panel
`;

/** The files of a small valid template; `VERSION` says which commit rendered. */
export function basicTemplateFiles(version: string): Record<string, string> {
  return {
    'template.yml': BASIC_TEMPLATE_YML,
    VERSION: `${version}\n`,
    'README.md.njk': '# {{ actor_name }}\n\nDomain: {{ domain }}, replicas: {{ replicas }}\n',
    'src/{{ actor_name }}.ts.njk': 'export const name = "{{ actor_name }}";\n',
    '{% if include_panel %}panel{% endif %}/index.ts.njk': 'export const title = "{{ panel_title }}";\n',
  };
}

/**
 * Creates a template repository with one commit per release: tags v0.2.0, v0.9.0, v0.10.0 and
 * v1.0.0-rc.1, then an untagged commit on main, and a branch `feature` off v0.9.0.
 */
export function createTemplateRepository(root: string): { dir: string; commits: Record<string, string> } {
  const dir = join(root, 'template-repo');
  mkdirSync(dir);
  gitIn(dir, 'init', '--quiet', '--initial-branch=main');
  const commits: Record<string, string> = {};
  const commit = (version: string) => {
    writeFiles(dir, basicTemplateFiles(version));
    gitIn(dir, 'add', '--all');
    gitIn(dir, 'commit', '--quiet', '-m', version);
    commits[version] = gitIn(dir, 'rev-parse', 'HEAD');
  };
  for (const tag of ['v0.2.0', 'v0.9.0', 'v0.10.0', 'v1.0.0-rc.1']) {
    commit(tag);
    gitIn(dir, 'tag', tag);
  }
  commit('main-unreleased');
  gitIn(dir, 'checkout', '--quiet', '-b', 'feature', 'v0.9.0');
  commit('feature-branch');
  gitIn(dir, 'checkout', '--quiet', 'main');
  return { dir, commits };
}

let templateCount = 0;

/** Creates a one-commit template repository from `files` (plus optional binary files) and returns its path. */
export function localTemplate(
  root: string,
  files: Record<string, string>,
  binary: Record<string, Buffer> = {},
): string {
  const dir = join(root, `template-${++templateCount}`);
  mkdirSync(dir);
  gitIn(dir, 'init', '--quiet', '--initial-branch=main');
  writeFiles(dir, files);
  for (const [path, content] of Object.entries(binary)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  gitIn(dir, 'add', '--all');
  gitIn(dir, 'commit', '--quiet', '-m', 'template');
  return dir;
}
