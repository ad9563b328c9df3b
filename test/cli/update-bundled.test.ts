/**
 * `actorkit update` for an actor rendered from the template bundled with actorkit: the old render
 * comes from the `actorkit@<recorded version>` tarball that the real `npm pack` downloads from a
 * fake registry on loopback; the target is the template bundled with this checkout.
 *
 * The "old actorkit" 0.0.9 is this checkout's template with one prompt line worded differently
 * and a NOTES.md the current template lacks. The actor is rendered from that old template by the
 * library's own renderer (as `--local`), and its answers file is then written as actorkit 0.0.9's
 * `new` writes it for the bundled template: `source: bundled`, no ref or commit.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { renderActor } from '../../cli/render/render-actor.js';
import { runCli } from '../../cli/run-cli.js';
import { ensureBuilt } from '../support/built-package.js';
import type { LoopbackServer } from '../surfaces/loopback.js';
import { startFakeNpmRegistry } from './support/fake-npm-registry.js';
import { PROMPT_LINE_V1 } from './support/evolving-template.js';
import { memoryIo } from './support/memory-io.js';
import { treeHash } from './support/tree-hash.js';
import { gitIn, temporaryFolder } from './support/template-repo.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CURRENT = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const OLD = '0.0.9';
const OLD_PROMPT_LINE = "  'When a tool fails, apologise and answer with what you know.',";
const PROMPT_FILE = 'src/prompts/system-prompt.ts';
const OLD_ONLY_FILE = 'NOTES.md';
const AUTHOR_COMMENT = '/** Rules the code enforces — tuned by the author for the weather desk. */';

const folder = temporaryFolder('actorkit-update-bundled-');
let registry: LoopbackServer;
/** The actor rendered from actorkit 0.0.9's template, committed; each test works on a copy. */
let pristine: string;
/** The packed "actorkit 0.0.9". */
let oldTarball: string;
let copies = 0;

function env(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    PATH: process.env.PATH,
    HOME: join(folder.dir, 'home'),
    npm_config_registry: `${registry.url}/`,
    npm_config_cache: join(folder.dir, 'npm-cache'),
    npm_config_update_notifier: 'false',
    ...extra,
  };
}

async function actorkit(args: string[], extraEnv: Record<string, string | undefined> = {}) {
  const io = memoryIo({ cwd: folder.dir, env: env(extraEnv) });
  const code = await runCli(args, io);
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

function replaceIn(path: string, from: string, to: string): void {
  const text = readFileSync(path, 'utf8');
  if (!text.includes(from)) throw new Error(`${path} does not contain ${from}`);
  writeFileSync(path, text.replace(from, to));
}

function commitAll(dir: string, message: string): void {
  gitIn(dir, 'add', '--all');
  gitIn(dir, 'commit', '--quiet', '--allow-empty', '-m', message);
}

/** A committed copy of the 0.0.9 actor after `edits`. */
function actorCopy(edits: (dir: string) => void = () => {}): string {
  const dir = join(folder.dir, `actor-${++copies}`);
  cpSync(pristine, dir, { recursive: true });
  edits(dir);
  commitAll(dir, 'author edits');
  return dir;
}

/**
 * Rewrites the answers file, the actorkit dependency and the vendor folder as if actorkit
 * `version`, installed from a registry, had rendered the actor from its bundled template.
 */
function recordBundled(dir: string, version: string): void {
  const path = join(dir, '.actorkit-answers.yml');
  const record = parse(readFileSync(path, 'utf8'));
  const dependency = `^${version}`;
  Object.assign(record, {
    source: 'bundled',
    location: `actorkit@${version}/templates/actor`,
    ref: null,
    commit: null,
    actorkit_version: version,
    rendered_with: { actorkit_dependency: dependency },
  });
  const manifestPath = join(dir, 'package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { dependencies: Record<string, string> };
  manifest.dependencies.actorkit = dependency;
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  rmSync(join(dir, 'vendor'), { recursive: true, force: true });
  writeFileSync(
    path,
    `# Written by \`actorkit new\` and \`actorkit update\`: the template and answers this actor was rendered from.\n${stringify(record)}`,
  );
}

/**
 * Rewrites the actor as if actorkit `version`, not installed from a registry, had rendered it:
 * its tarball alone in vendor/, named by package.json, the README and the answers file.
 */
function recordVendored(dir: string, version: string, tarball: string): void {
  const path = join(dir, '.actorkit-answers.yml');
  const record = parse(readFileSync(path, 'utf8'));
  const vendored = `vendor/actorkit-${version}.tgz`;
  Object.assign(record, {
    source: 'bundled',
    location: `actorkit@${version}/templates/actor`,
    ref: null,
    commit: null,
    actorkit_version: version,
    rendered_with: { actorkit_dependency: `file:${vendored}` },
  });
  writeFileSync(
    path,
    `# Written by \`actorkit new\` and \`actorkit update\`: the template and answers this actor was rendered from.\n${stringify(record)}`,
  );
  const manifestPath = join(dir, 'package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { dependencies: Record<string, string> };
  manifest.dependencies.actorkit = `file:${vendored}`;
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  replaceIn(join(dir, 'README.md'), `vendor/actorkit-${CURRENT}.tgz`, vendored);
  rmSync(join(dir, 'vendor'), { recursive: true, force: true });
  mkdirSync(join(dir, 'vendor'));
  cpSync(tarball, join(dir, vendored));
}

/** Packs "actorkit 0.0.9": this checkout's template and Dockerfile recipe, with the old prompt line and NOTES.md. */
function packOldActorkit(): { dir: string; tarball: string; manifest: { name: string; version: string } } {
  const dir = join(folder.dir, 'old-actorkit');
  cpSync(join(ROOT, 'templates', 'actor'), join(dir, 'templates', 'actor'), { recursive: true });
  cpSync(join(ROOT, 'Dockerfile.template'), join(dir, 'Dockerfile.template'));
  replaceIn(join(dir, 'templates/actor/template/src/prompts/system-prompt.ts.njk'), PROMPT_LINE_V1, OLD_PROMPT_LINE);
  writeFileSync(
    join(dir, 'templates/actor/template', `${OLD_ONLY_FILE}.njk`),
    '# {{ actor_name }} notes\n\nWritten by the template of actorkit 0.0.9.\n',
  );
  // Its peer ranges are this checkout's: the template renders its dependencies from them.
  const { peerDependencies } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    peerDependencies: Record<string, string>;
  };
  const manifest = {
    name: 'actorkit',
    version: OLD,
    files: ['templates', 'Dockerfile.template'],
    peerDependencies,
  };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  gitIn(dir, 'init', '--quiet', '--initial-branch=main');
  commitAll(dir, 'actorkit 0.0.9');
  const out = join(folder.dir, 'packed');
  mkdirSync(out);
  execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', out], {
    cwd: dir,
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  return { dir, tarball: join(out, `actorkit-${OLD}.tgz`), manifest };
}

beforeAll(async () => {
  ensureBuilt();
  const old = packOldActorkit();
  oldTarball = old.tarball;
  registry = await startFakeNpmRegistry({ manifest: old.manifest, tarball: old.tarball }, 'http://127.0.0.1:9/');
  pristine = join(folder.dir, 'pristine');
  const rendered = await renderActor({
    actorName: 'Weather Bot',
    targetDir: pristine,
    local: join(old.dir, 'templates', 'actor'),
    defaults: true,
    io: { cwd: folder.dir, env: env(), interactive: false },
  });
  expect(rendered.status, JSON.stringify(rendered)).toBe('ok');
  recordBundled(pristine, OLD);
  gitIn(pristine, 'init', '--quiet', '--initial-branch=main');
  commitAll(pristine, 'rendered by actorkit 0.0.9');
}, 120_000);
afterAll(async () => {
  await registry?.close();
  folder.cleanup();
});

describe('actorkit update: an actor rendered from the bundled template', () => {
  it('takes the template of the recorded actorkit from the npm registry and merges up to the installed one (exit 0), then validates', async () => {
    const actor = actorCopy((dir) => {
      const prompt = join(dir, PROMPT_FILE);
      writeFileSync(prompt, readFileSync(prompt, 'utf8').replace(/^.*\n/, `${AUTHOR_COMMENT}\n`));
    });
    const result = await actorkit(['update', actor, '--trust']);
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(result.stderr).toContain(`fetching the template of actorkit@${OLD} from the npm registry\n`);
    expect(result.stdout).toContain(`: actorkit ${OLD} template → actorkit ${CURRENT} template\n`);
    expect(result.stdout).toMatch(/ {2}merged {6}src\/prompts\/system-prompt\.ts\n/);
    expect(result.stdout).toMatch(/ {2}deleted {5}NOTES\.md\n/);
    expect(result.stdout).toMatch(/OK\n$/);

    const prompt = readFileSync(join(actor, PROMPT_FILE), 'utf8');
    expect(prompt.startsWith(`${AUTHOR_COMMENT}\n`)).toBe(true);
    expect(prompt).toContain(PROMPT_LINE_V1);
    expect(prompt).not.toContain(OLD_PROMPT_LINE);
    expect(readdirSync(actor)).not.toContain(OLD_ONLY_FILE);
    expect(parse(readFileSync(join(actor, '.actorkit-answers.yml'), 'utf8'))).toMatchObject({
      source: 'bundled',
      location: `actorkit@${CURRENT}/templates/actor`,
      ref: null,
      commit: null,
      actorkit_version: CURRENT,
      answers: { actor_name: 'Weather Bot' },
    });

    const validated = await actorkit(['validate', actor]);
    expect(validated.code, validated.stdout).toBe(0);
    const again = await actorkit(['update', actor, '--force']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('fetching');
    expect(again.stdout).toContain(`  already at actorkit ${CURRENT}'s template\n`);
  }, 90_000);

  it('marks an author edit on the line the template changed, labelled with the actorkit versions, and exits 1', async () => {
    const mine = "  'When a tool fails, apologise twice and answer with what you know.',";
    const actor = actorCopy((dir) => replaceIn(join(dir, PROMPT_FILE), OLD_PROMPT_LINE, mine));
    const result = await actorkit(['update', actor, '--trust']);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toMatch(/ {2}conflicted {2}src\/prompts\/system-prompt\.ts\n/);
    expect(readFileSync(join(actor, PROMPT_FILE), 'utf8')).toContain(
      ['<<<<<<< yours', mine, '=======', PROMPT_LINE_V1, `>>>>>>> actorkit ${CURRENT} template`].join('\n'),
    );
    expect(parse(readFileSync(join(actor, '.actorkit-answers.yml'), 'utf8')).actorkit_version).toBe(CURRENT);
  }, 90_000);

  it('at the running actorkit version the old and new templates are one: nothing to change, no download (exit 0)', async () => {
    const actor = join(folder.dir, 'current');
    const created = await actorkit(['new', 'Weather Bot', actor, '--defaults']);
    expect(created.code, created.stderr).toBe(0);
    expect(parse(readFileSync(join(actor, '.actorkit-answers.yml'), 'utf8'))).toMatchObject({
      source: 'bundled',
      actorkit_version: CURRENT,
    });
    gitIn(actor, 'init', '--quiet', '--initial-branch=main');
    commitAll(actor, 'rendered');
    const before = treeHash(actor);
    const result = await actorkit(['update', actor], { npm_config_registry: 'http://127.0.0.1:9/' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('fetching');
    expect(result.stdout).toContain(
      `actorkit ${CURRENT} template → actorkit ${CURRENT} template\n  already at actorkit ${CURRENT}'s template\n  nothing to change`,
    );
    expect(treeHash(actor)).toEqual(before);
  }, 90_000);

  it('--dry-run prints the plan and writes nothing', async () => {
    const actor = actorCopy();
    const before = treeHash(actor);
    const result = await actorkit(['update', actor, '--trust', '--dry-run', '--json']);
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      status: 'ok',
      dryRun: true,
      from: { ref: null, commit: null, actorkit: OLD },
      to: { ref: null, commit: null, actorkit: CURRENT },
      plan: { updated: [PROMPT_FILE], deleted: [OLD_ONLY_FILE], conflicted: [] },
    });
    expect(treeHash(actor)).toEqual(before);
    expect(gitIn(actor, 'status', '--porcelain')).toBe('');
  }, 90_000);
});

describe('actorkit update: an actor that carries the actorkit that rendered it (vendor/)', () => {
  it('reads the recorded template from the vendored tarball, never from a registry, and replaces the tarball with the running actorkit (exit 0)', async () => {
    const actor = actorCopy((dir) => recordVendored(dir, OLD, oldTarball));
    const before = treeHash(actor);
    const untrusted = await actorkit(['update', actor], { npm_config_registry: 'http://127.0.0.1:9/' });
    expect(untrusted.code).toBe(2);
    expect(untrusted.stderr).toContain(
      `update would render the template of actorkit ${OLD} in vendor/actorkit-${OLD}.tgz, which .actorkit-answers.yml records`,
    );
    expect(treeHash(actor)).toEqual(before);
    const result = await actorkit(['update', actor, '--trust'], { npm_config_registry: 'http://127.0.0.1:9/' });
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(result.stderr).toContain(`reading the template of actorkit@${OLD} from vendor/actorkit-${OLD}.tgz\n`);
    expect(result.stderr).not.toContain('fetching');
    expect(result.stdout).toContain(`: actorkit ${OLD} template → actorkit ${CURRENT} template\n`);
    expect(result.stdout).toMatch(
      new RegExp(` {2}created {5}vendor/actorkit-${CURRENT.replace(/\./g, '\\.')}\\.tgz\n`),
    );
    expect(result.stdout).toMatch(new RegExp(` {2}deleted {5}vendor/actorkit-${OLD.replace(/\./g, '\\.')}\\.tgz\n`));
    expect(result.stdout).toContain('run `npm install` to bring node_modules and package-lock.json along');
    expect(result.stdout).toMatch(/OK\n$/);
    expect(readdirSync(join(actor, 'vendor'))).toEqual([`actorkit-${CURRENT}.tgz`]);
    const manifest = JSON.parse(readFileSync(join(actor, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(manifest.dependencies.actorkit).toBe(`file:vendor/actorkit-${CURRENT}.tgz`);
    expect(readFileSync(join(actor, 'README.md'), 'utf8')).toContain(`depends on \`vendor/actorkit-${CURRENT}.tgz\``);
    expect(parse(readFileSync(join(actor, '.actorkit-answers.yml'), 'utf8'))).toMatchObject({
      actorkit_version: CURRENT,
      rendered_with: { actorkit_dependency: `file:vendor/actorkit-${CURRENT}.tgz` },
    });
    expect(readFileSync(join(actor, PROMPT_FILE), 'utf8')).toContain(PROMPT_LINE_V1);
  }, 90_000);

  it('says how to restore a vendored tarball that is missing (exit 1), fetches nothing and changes nothing', async () => {
    const actor = actorCopy((dir) => {
      recordVendored(dir, OLD, oldTarball);
      rmSync(join(dir, 'vendor'), { recursive: true });
    });
    const before = treeHash(actor);
    const result = await actorkit(['update', actor, '--trust'], { npm_config_registry: 'http://127.0.0.1:9/' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `error: this actor depends on vendor/actorkit-${OLD}.tgz, which is missing: its template cannot be rendered again to compare. Restore it (e.g. \`git checkout -- vendor/actorkit-${OLD}.tgz\`); update never fetches a vendored actorkit from a registry\n`,
    );
    expect(treeHash(actor)).toEqual(before);
  });
});

describe('actorkit update: bundled-template refusals and failures', () => {
  it('refuses --ref: the bundled template follows the installed actorkit (exit 2)', async () => {
    const actor = actorCopy();
    const result = await actorkit(['update', actor, '--ref', 'v1.1.0']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      '--ref v1.1.0 does not apply: this actor was rendered from the template bundled with actorkit, which follows the installed actorkit',
    );
    expect(result.stderr).toContain('install the actorkit version whose template you want');
  });

  it('says which version the registry lacks (exit 1) and changes nothing', async () => {
    const actor = actorCopy((dir) => recordBundled(dir, '0.0.8'));
    const before = treeHash(actor);
    const result = await actorkit(['update', actor, '--trust']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error: the npm registry has no actorkit@0.0.8');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(treeHash(actor)).toEqual(before);
  }, 60_000);

  it('says so when the tarball of the recorded version holds no template (exit 1)', async () => {
    const dir = join(folder.dir, 'templateless-actorkit');
    mkdirSync(dir);
    const manifest = { name: 'actorkit', version: '0.0.7' };
    writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest)}\n`);
    writeFileSync(join(dir, 'README.md'), '# actorkit 0.0.7, before templates\n');
    execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir], {
      cwd: dir,
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
    const other = await startFakeNpmRegistry(
      { manifest, tarball: join(dir, 'actorkit-0.0.7.tgz') },
      'http://127.0.0.1:9/',
    );
    try {
      const actor = actorCopy((copy) => recordBundled(copy, '0.0.7'));
      const result = await actorkit(['update', actor, '--trust'], { npm_config_registry: `${other.url}/` });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        'error: actorkit@0.0.7 from the npm registry has no templates/actor/template.yml',
      );
    } finally {
      await other.close();
    }
  }, 60_000);

  it('says npm is missing (exit 1)', async () => {
    const bin = join(folder.dir, 'git-only-bin');
    mkdirSync(bin, { recursive: true });
    cpSync(execFileSync('which', ['git'], { encoding: 'utf8' }).trim(), join(bin, 'git'));
    const actor = actorCopy();
    const result = await actorkit(['update', actor, '--trust'], { PATH: bin });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`error: npm is not on PATH: it is needed to pack actorkit@${OLD}`);
  });

  it('refuses an answers file whose actorkit_version is not a version (exit 2)', async () => {
    const actor = actorCopy((dir) =>
      replaceIn(
        join(dir, '.actorkit-answers.yml'),
        `actorkit_version: ${OLD}`,
        'actorkit_version: --registry=http://evil',
      ),
    );
    const result = await actorkit(['update', actor]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("records actorkit_version '--registry=http://evil', which is not a version");
  });
});
