import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryStore, silentLogger } from '../../src/index.js';

const ROOT = resolve(import.meta.dirname, '../..');
const REDOCLY = join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
const scratch = mkdtempSync(join(tmpdir(), 'actorkit-openapi-lint-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Values for every variable a surface may need, so an example with all its options starts. */
const SURFACE_ENV: Record<string, string> = {
  LLM_PROVIDER: 'offline',
  MESH_KEY: 'a-mesh-key-for-the-tests',
  WORKFLOW_BASE_URL: 'http://127.0.0.1:9',
};
const KEY_ON: Record<string, string> = { API_KEY_ENABLED: 'true', API_KEY: 'k-1' };

/** The `/openapi.json` an example serves in an environment. */
async function documentOf(example: string, env: Record<string, string>): Promise<unknown> {
  const { createApp } = (await import(join(ROOT, 'examples', example, 'src', 'app.ts'))) as {
    createApp: (
      env: Record<string, string>,
      overrides: object,
    ) => { request: (path: string) => Promise<Response> | Response; actor: { start(): Promise<void> } };
  };
  const app = createApp({ ...SURFACE_ENV, ...env }, { store: new MemoryStore(), logger: silentLogger });
  await app.actor.start();
  return (await app.request('/openapi.json')).json();
}

interface LintProblem {
  readonly ruleId: string;
  readonly severity: 'error' | 'warn';
  readonly message: string;
  readonly location: { readonly pointer: string }[];
}

/** Runs `redocly lint` (recommended rules, offline: no telemetry, no update check) on a document. */
async function lint(document: unknown, name: string): Promise<LintProblem[]> {
  const file = join(scratch, `${name}.json`);
  writeFileSync(file, JSON.stringify(document));
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
  const run = await promisify(execFile)(
    process.execPath,
    [REDOCLY, 'lint', file, '--format=json', '--extends=recommended'],
    { env, maxBuffer: 16 << 20 },
  ).catch((error: { stdout?: string }) => ({
    stdout: error.stdout ?? '',
  }));
  return (JSON.parse(run.stdout) as { problems: LintProblem[] }).problems;
}

/**
 * Warnings a truthful document keeps, by rule: the definition names no licence; open probes
 * (`/health`, `/ready`, `/metrics`, `/openapi.json`, `/docs`) answer no 4xx when no Host guard
 * applies (with the API key on, or on the platform), and inventing one would be a lie;
 * `/oauth/authorize` answers only its redirect.
 */
const KEPT_WARNINGS: ReadonlySet<string> = new Set([
  'info-license',
  'operation-4xx-response',
  'operation-2xx-response',
]);

const summary = (problems: readonly LintProblem[]) =>
  problems.map((problem) => `${problem.ruleId} ${problem.location[0]?.pointer ?? ''}: ${problem.message}`).join('\n');

describe('redocly lint of /openapi.json (issue #27 item 2)', () => {
  const cases = [
    ['hello-actor', 'no key', {}],
    ['hello-actor', 'key on', KEY_ON],
    ['hello-actor', 'platform', { ...KEY_ON, ACTOR_PLATFORM: 'true' }],
    ['mesh-actor', 'key on', KEY_ON],
    ['panel-workflow-actor', 'no key', {}],
  ] as const;
  for (const [example, mode, env] of cases) {
    it(`${example}, ${mode}: 0 errors, and only the warnings a truthful document keeps`, async () => {
      const problems = await lint(await documentOf(example, env), `${example}-${mode.replace(' ', '-')}`);
      expect(summary(problems.filter((problem) => problem.severity === 'error'))).toBe('');
      expect(summary(problems.filter((problem) => !KEPT_WARNINGS.has(problem.ruleId)))).toBe('');
    }, 60_000);
  }
});
