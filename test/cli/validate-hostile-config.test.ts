/**
 * `actorkit validate` on a hostile `src/platform/config.json`: it reads a regular file of at most
 * 1 MiB only (a link, a FIFO or a huge file is one clear problem, never read, never written
 * through), and the regular-expression work of checking settings defaults against their
 * `pattern` is bounded by a time budget.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/run-cli.js';
import { ensureBuilt } from '../support/built-package.js';
import { writeInstalledActorFixture } from './support/actor-fixture.js';
import { memoryIo } from './support/memory-io.js';
import { temporaryFolder } from './support/template-repo.js';

const folder = temporaryFolder('actorkit-validate-hostile-');
afterAll(() => folder.cleanup());
let actor = '';
let configPath = '';
let emitted = '';
const SECRET = 'root:SECRET-FIRST-LINE:0:0';

beforeAll(async () => {
  ensureBuilt();
  actor = join(folder.dir, 'actor');
  configPath = writeInstalledActorFixture(actor);
  expect((await validate('--write')).code).toBe(0);
  emitted = readFileSync(configPath, 'utf8');
}, 120_000);
beforeEach(() => {
  rmSync(configPath, { force: true });
  writeFileSync(configPath, emitted);
});

async function validate(...args: string[]) {
  const run = memoryIo({ cwd: folder.dir });
  const code = await runCli(['validate', actor, ...args], run);
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

describe('actorkit validate: a config.json that is not a plain file of the actor', () => {
  it('refuses a link to a file outside (exit 1): never prints its content, never writes through it with --write', async () => {
    const outside = join(folder.dir, 'passwd');
    writeFileSync(outside, `${SECRET}\nsecond line\n`);
    rmSync(configPath);
    symlinkSync(outside, configPath);
    for (const args of [[], ['--write']]) {
      const result = await validate(...args);
      expect(result.stdout + result.stderr).not.toContain('SECRET');
      expect(result.stdout).toContain(`- [emitter] /: src/platform/config.json is a symbolic link (to ${outside})`);
      expect(result.code).toBe(1);
      expect(readFileSync(outside, 'utf8')).toBe(`${SECRET}\nsecond line\n`);
    }
  });

  it('refuses a FIFO (exit 1) instead of waiting for a writer forever', async () => {
    rmSync(configPath);
    execFileSync('mkfifo', [configPath]);
    const started = Date.now();
    const result = await validate();
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(result.stdout).toContain('- [emitter] /: src/platform/config.json is not a regular file (a FIFO)');
    expect(result.code).toBe(1);
  }, 30_000);

  it('refuses a file over 1 MiB (exit 1) without reading it', async () => {
    writeFileSync(configPath, `${emitted.trimEnd()}${' '.repeat(1024 * 1024)}\n`);
    const result = await validate();
    expect(result.stdout).toMatch(
      /- \[emitter\] \/: src\/platform\/config\.json is 1,?\d{3},?\d{3} bytes, more than the 1 MiB validate reads/,
    );
    expect(result.code).toBe(1);
  });
});

describe('actorkit validate: a settings pattern that backtracks exponentially', () => {
  it('stops checking that default within its time budget and says why (exit 1)', async () => {
    const config = JSON.parse(emitted) as { settings: { properties: Record<string, Record<string, unknown>> } };
    const greeting = config.settings.properties.greeting as Record<string, unknown>;
    Object.assign(greeting, { pattern: '^(a+)+$', default: `${'a'.repeat(32)}!` });
    writeFileSync(configPath, `${JSON.stringify(config, null, 2)}\n`);
    const started = Date.now();
    const result = await validate();
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(result.stdout).toContain(
      '- [schema default] /settings/properties/greeting/default: checking this default against its own schema took longer than 5 s and was stopped',
    );
    expect(result.code).toBe(1);
  }, 60_000);
});
