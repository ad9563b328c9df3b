import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkRuntime, RUNTIMES_UNDER_TEST, type RuntimeUnderTest } from './runtimes-under-test.js';
import { within } from './spawn-actor.js';

const surfaceActor = fileURLToPath(new URL('../fixtures/startup-refusal/surface-actor.mjs', import.meta.url));
const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'actorkit-refusal-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Runs an actor entry to its end and collects what it wrote. */
function runToExit(command: string, args: readonly string[], env: Record<string, string>) {
  const child = spawn(command, [...args], {
    cwd: repositoryRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: dataDir,
      TMPDIR: tmpdir(),
      NO_COLOR: '1',
      PORT: '0',
      DATA_DIR: dataDir,
      DATABASE_URL: 'memory://',
      ...env,
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return within(exit, 30_000, `${command} ${args.join(' ')}`).then(
    (code) => ({ code, stdout, stderr }),
    (error: unknown) => {
      child.kill('SIGKILL');
      throw error;
    },
  );
}

/** What a refused start must look like: exit 1, one line on stderr naming `names`, no stack trace, nothing on stdout. */
function expectOneLineRefusal(
  result: { code: number | null; stdout: string; stderr: string },
  names: readonly string[],
  hidden: readonly string[] = [],
) {
  const shown = JSON.stringify(result);
  expect(result.code, shown).toBe(1);
  expect(result.stdout, shown).toBe('');
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines, shown).toHaveLength(1);
  expect(lines[0], shown).toMatch(/^actorkit: refusing to start: /);
  for (const name of names) expect(lines[0], shown).toContain(name);
  expect(result.stderr, shown).not.toMatch(/\n\s+at |Error:|node:internal/);
  for (const secret of hidden) expect(result.stderr, shown).not.toContain(secret);
}

const HELLO_CASES: readonly {
  readonly env: Record<string, string>;
  readonly names: readonly string[];
  readonly hidden?: readonly string[];
}[] = [
  { env: { API_KEY_ENABLED: 'true' }, names: ['API_KEY_ENABLED', 'API_KEY is empty'] },
  { env: { DATABASE_URL: 'redis://admin:hunter2@db:6379' }, names: ['DATABASE_URL'], hidden: ['hunter2'] },
  { env: { PORT: 'eighty' }, names: ['PORT must be an integer'] },
  { env: { SHUTDOWN_GRACE_MS: 'soon' }, names: ['SHUTDOWN_GRACE_MS'] },
  { env: { LLM_BASE_URL: 'not a url' }, names: ['setting llm_base_url', 'the environment variable LLM_BASE_URL'] },
  {
    env: { LLM_HEADERS: 'x-portkey-provider: openai' },
    names: ['setting llm_headers', 'the environment variable LLM_HEADERS', 'must be a JSON object of header names'],
  },
  {
    env: { LLM_HEADERS: '{"Authorization": "Bearer sk-SECRET-9"}' },
    names: ['setting llm_headers', 'may not set Authorization'],
    hidden: ['sk-SECRET-9'],
  },
];

const SURFACE_CASES: readonly { readonly env: Record<string, string>; readonly names: readonly string[] }[] = [
  { env: { SURFACE: 'mesh' }, names: ['MESH_KEY is empty'] },
  { env: { SURFACE: 'mesh', MESH_KEY: '${secret:MESH_KEY}' }, names: ['MESH_KEY is still the placeholder'] },
  { env: { SURFACE: 'workflow' }, names: ['WORKFLOW_BASE_URL is unset'] },
  { env: { SURFACE: 'workflow', WORKFLOW_BASE_URL: 'n8n:5678 please' }, names: ['WORKFLOW_BASE_URL'] },
];

const runtimes = RUNTIMES_UNDER_TEST.filter((runtime) => runtime.name === 'node-system' || runtime.name === 'bun');

describe.each(runtimes)('a refused start under $name', (runtime: RuntimeUnderTest) => {
  const adapter = runtime.name === 'bun' ? 'bun' : 'node';
  beforeAll(() => {
    checkRuntime(runtime);
  });

  it.each(HELLO_CASES)('the example actor with $env: one line, exit 1', async ({ env, names, hidden }) => {
    expectOneLineRefusal(await runToExit(runtime.command, runtime.args, env), names, hidden);
  });

  it.each(SURFACE_CASES)('a surface without its variable, $env: one line, exit 1', async ({ env, names }) => {
    expectOneLineRefusal(await runToExit(runtime.command, [surfaceActor, adapter], env), names);
  });
});
