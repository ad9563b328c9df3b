// An actor rendered with every template option on serves exactly what its emitted
// configuration declares, and `actorkit validate` passes on it before and after `npm install`.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, REPOSITORY_ROOT } from '../support/built-package.js';
import { withoutPackingLine } from '../support/packing-line.js';

const BINARY = join(REPOSITORY_ROOT, 'dist', 'cli', 'main.js');
const scratch = mkdtempSync(join(tmpdir(), 'actorkit-every-option-'));
const actorDir = join(scratch, 'every');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const run = (args: string[], cwd = scratch) =>
  spawnSync(process.execPath, args, {
    cwd,
    encoding: 'utf8',
    timeout: 120_000,
    env: { PATH: process.env.PATH, HOME: scratch },
  });

/** What `npm install` would bring: valibot and vitest from this checkout, and this checkout (its build) as actorkit. */
function linkDependencies(): void {
  const modules = join(actorDir, 'node_modules');
  mkdirSync(modules, { recursive: true });
  for (const name of ['valibot', 'vitest'])
    symlinkSync(join(REPOSITORY_ROOT, 'node_modules', name), join(modules, name));
  symlinkSync(REPOSITORY_ROOT, join(modules, 'actorkit'));
}

beforeAll(() => {
  ensureBuilt();
  const created = run([
    BINARY,
    'new',
    'Every Option',
    actorDir,
    '--defaults',
    '--data',
    'include_panel=true',
    '--data',
    'fleet_mesh=true',
    '--data',
    'integration_type=n8n',
    '--data',
    'expose_ag_ui=true',
  ]);
  expect(withoutPackingLine(created.stderr)).toBe('');
  expect(created.status).toBe(0);
}, 180_000);

describe('an actor with every template option on', () => {
  it('validates before npm install (the CLI lends its own actorkit) and after it (its own)', () => {
    const before = run([BINARY, 'validate', actorDir]);
    expect(before.stdout).toContain("using the CLI's own (none installed for the actor) actorkit");
    expect(before.stdout).toMatch(/OK\n$/);
    linkDependencies();
    const after = run([BINARY, 'validate', actorDir]);
    expect(after.stdout).toContain("using the actor's own actorkit");
    expect(after.stdout).toMatch(/OK\n$/);
    expect(after.status).toBe(0);
  });

  it('declares in its config.json the panel, peer read and AG-UI route it serves, and serves nothing else', () => {
    const config = JSON.parse(readFileSync(join(actorDir, 'src', 'platform', 'config.json'), 'utf8')) as {
      panels: unknown[];
      contract: { endpoints: { method: string; path: string }[] };
    };
    expect(config.panels).toEqual([{ slug: 'stats', title: expect.any(String), description: expect.any(String) }]);
    const labels = config.contract.endpoints.map((endpoint) => `${endpoint.method} ${endpoint.path}`);
    expect(labels).toEqual(
      expect.arrayContaining([
        'GET /panel/{slug}',
        'GET /api/everyoption/lookup/{topic}',
        'ANY /workflow/*',
        'POST /agent/ag-ui',
      ]),
    );
    writeFileSync(
      join(actorDir, 'served.mts'),
      `import { MemoryStore, silentLogger } from 'actorkit';
import { configDifferences } from 'actorkit/testing';
import { createApp } from './src/app.ts';
import config from './src/platform/config.json' with { type: 'json' };
const env = { LLM_PROVIDER: 'offline', MESH_KEY: 'mesh-key-0123456789abcdef', WORKFLOW_BASE_URL: 'http://127.0.0.1:9' };
const app = createApp(env, { store: new MemoryStore(), logger: silentLogger });
await app.actor.start();
const served = await app.request('/api/everyoption/lookup/news', { headers: { 'X-Mesh-Key': env.MESH_KEY } });
console.log(JSON.stringify({ differences: await configDifferences(app, config), peerRead: served.status, panel: (await app.request('/panel/stats/data')).status }));
await app.actor.stop?.();
`,
    );
    const checked = run([join(REPOSITORY_ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'served.mts'], actorDir);
    expect(checked.stderr).toBe('');
    expect(JSON.parse(checked.stdout.trim().split('\n').at(-1)!)).toEqual({
      differences: [],
      peerRead: 200,
      panel: 200,
    });
  });
});
