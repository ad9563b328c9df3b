// What a start loads (issue #17, cold start): the default actor — offline model, SQLite — must not
// import the packages only some actors need (openai, pg, the MCP SDK); an actor that needs one
// loads it, so each check can fail both ways. Runs the built example actor under Node with
// test/support/record-loaded-modules.mjs, which writes down every module the process loads.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportedFiles } from '../../scripts/package-exports.mjs';
import { ensureBuilt, REPOSITORY_ROOT } from '../support/built-package.js';
import { checkRuntime, RUNTIMES_UNDER_TEST } from './runtimes-under-test.js';
import { spawnActor, waitForLogEvent, waitUntilReady, type SpawnedActor } from './spawn-actor.js';

const recorder = fileURLToPath(new URL('../support/record-loaded-modules.mjs', import.meta.url));
const surfaceActor = fileURLToPath(new URL('../fixtures/startup-refusal/surface-actor.mjs', import.meta.url));
const node = RUNTIMES_UNDER_TEST.find((runtime) => runtime.name === 'node-system')!;
const exampleEntry = node.args.at(-1)!;
const recordsDir = mkdtempSync(join(tmpdir(), 'actorkit-start-imports-'));

/**
 * The OpenTelemetry SDK packages only an actor with traces loads (`@opentelemetry/api` is not one:
 * prom-client loads it on the first scrape of `/metrics`).
 */
const TRACING_SDK_PACKAGES = [
  '@opentelemetry/sdk-trace',
  '@opentelemetry/context-async-hooks',
  '@opentelemetry/resources',
  '@opentelemetry/exporter-trace-otlp-proto',
] as const;

/** The packages only some actors need, as they appear in a loaded module's URL. */
const OPTIONAL_PACKAGES = ['openai', 'pg', '@modelcontextprotocol/sdk', ...TRACING_SDK_PACKAGES] as const;

/**
 * The packages of the Prometheus exposition, which the actor loads on the first scrape of
 * `/metrics` (with `@opentelemetry/api`, which prom-client requires: about a tenth of a start on
 * Node 20). The recorder sees what the ESM loader loads, so not that `require`.
 */
const EXPOSITION_PACKAGES = ['prom-client', '@hono/prometheus'] as const;

/** The built files package.json `exports` names under dist/src (`./dist/src/sdk/index.js`): the bundled entries. */
const PUBLIC_ENTRIES = exportedFiles(REPOSITORY_ROOT).filter((target) => target.startsWith('./dist/src/'));

const started: SpawnedActor[] = [];
let runs = 0;

/**
 * Starts `args` under Node with the recorder; `loaded()` names the packages the process has loaded
 * so far, and `collated()` whether it has compared strings by locale (which loads ICU's collator).
 */
async function startRecorded(args: readonly string[], env: Record<string, string>) {
  const file = join(recordsDir, `run-${(runs += 1)}.txt`);
  const actor = await spawnActor(
    { name: 'node-system', command: node.command, args: ['--import', recorder, ...args] },
    { LOADED_MODULES_FILE: file, ...env },
  );
  started.push(actor);
  const lines = () => readFileSync(file, 'utf8').split('\n');
  const loaded = (): Set<string> => {
    const packages = new Set<string>();
    for (const url of lines()) {
      const match = /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
      if (match) packages.add(match[1]!);
    }
    return packages;
  };
  const collated = () => lines().includes('intl:collator');
  return { actor, lines, loaded, collated };
}

const invoke = (actor: SpawnedActor, extra: { stream?: boolean } = {}) =>
  fetch(`${actor.baseUrl}/agent/invoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      user_identifier: 'start-imports',
      session_id: 'start-imports:1',
      message: 'hello',
      ...extra,
    }),
  });

beforeAll(() => {
  ensureBuilt();
  checkRuntime(node);
}, 180_000);

afterAll(async () => {
  await Promise.all(started.map((actor) => actor.dispose()));
  rmSync(recordsDir, { recursive: true, force: true });
});

describe('what a start loads', () => {
  it('the example actor on an SQLite file with the offline model loads neither openai, pg nor the MCP SDK, not even to answer an invoke', async () => {
    const { actor, loaded } = await startRecorded([exampleEntry], { DATABASE_URL: '' });
    await waitUntilReady(actor);
    const response = await invoke(actor);
    expect(response.status, await response.text()).toBe(200);
    const packages = loaded();
    // The recorder sees packages the start does need.
    expect(packages).toContain('libsql');
    expect(packages).toContain('hono');
    for (const name of OPTIONAL_PACKAGES) expect(packages, `${name} was loaded`).not.toContain(name);
  });

  it('the example actor loads actorkit as its bundled entries, Kysely inside them: a few files, not each module of dist/src (scripts/bundle-entries.mjs)', async () => {
    const { actor, lines, loaded } = await startRecorded([exampleEntry], { DATABASE_URL: '' });
    await waitUntilReady(actor);
    const response = await invoke(actor);
    expect(response.status, await response.text()).toBe(200);
    const actorkitFiles = lines().filter((url) => url.includes('/dist/src/'));
    // The entries the example imports (actorkit, actorkit/node) and the chunks they share; tsc's
    // one file per module made about 230 of them, plus Kysely's 260 in node_modules.
    expect(actorkitFiles.length, actorkitFiles.join('\n')).toBeLessThanOrEqual(40);
    const bundled = (url: string) =>
      PUBLIC_ENTRIES.some((entry) => url.endsWith(entry.slice(1))) || /\/dist\/src\/chunks\/[^/]+\.js$/.test(url);
    expect(
      actorkitFiles.filter((url) => !bundled(url)),
      'a module of dist/src outside the bundled entries and their chunks',
    ).toEqual([]);
    expect(loaded()).not.toContain('kysely');
  });

  it('the example actor gets ready without comparing strings by locale (ICU collation data is not loaded at start)', async () => {
    const { actor, collated } = await startRecorded([exampleEntry], { DATABASE_URL: '' });
    await waitUntilReady(actor);
    expect(collated(), 'localeCompare or Intl.Collator ran before the actor was ready').toBe(false);
  });

  it('the example actor loads prom-client and @hono/prometheus on the first scrape of /metrics, not at start nor to answer an invoke', async () => {
    const { actor, loaded } = await startRecorded([exampleEntry], { DATABASE_URL: '' });
    await waitUntilReady(actor);
    const response = await invoke(actor);
    expect(response.status, await response.text()).toBe(200);
    for (const name of EXPOSITION_PACKAGES) expect(loaded(), `${name} was loaded`).not.toContain(name);
    const scrape = await fetch(`${actor.baseUrl}/metrics`);
    const text = await scrape.text();
    expect(scrape.status, text).toBe(200);
    // The invoke before the first scrape is in it, and so are Node's default metrics.
    expect(text).toMatch(/^actor_invocations_total\{outcome="success"\} 1$/m);
    expect(text).toMatch(/^http_requests_total\{method="POST",route="\/agent\/invoke",status="200",ok="true"\} 1$/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_p50_seconds \d/m);
    expect(text).toMatch(/^process_cpu_seconds_total \d/m);
    for (const name of EXPOSITION_PACKAGES) expect(loaded(), `${name} was not loaded`).toContain(name);
  });

  it('the example actor on PostgreSQL loads pg at start (an unreachable server is enough)', async () => {
    const { actor, loaded } = await startRecorded([exampleEntry], {
      DATABASE_URL: 'postgres://actorkit@127.0.0.1:1/unreachable',
    });
    await waitForLogEvent(actor, 'store_database_unreachable');
    expect(loaded()).toContain('pg');
    expect(loaded()).not.toContain('openai');
  });

  it('the example actor with a model configured loads openai on its first streamed model call, not at start nor for a whole answer', async () => {
    const { actor, loaded } = await startRecorded([exampleEntry], {
      DATABASE_URL: '',
      LLM_BASE_URL: 'http://127.0.0.1:1/v1',
      LLM_MODEL: 'absent-model',
      LLM_MAX_RETRIES: '0',
    });
    await waitUntilReady(actor);
    expect(loaded()).not.toContain('openai');
    const response = await invoke(actor);
    expect(response.status, await response.text()).toBe(502);
    expect(loaded()).not.toContain('openai');
    const streamed = await invoke(actor, { stream: true });
    expect(await streamed.text()).toContain('model_error');
    expect(loaded()).toContain('openai');
  });

  it('the example actor with OTEL_EXPORTER_OTLP_ENDPOINT set loads the OpenTelemetry SDK before it is ready', async () => {
    const { actor, loaded } = await startRecorded([exampleEntry], {
      DATABASE_URL: '',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1',
    });
    await waitUntilReady(actor);
    for (const name of TRACING_SDK_PACKAGES) expect(loaded(), `${name} was not loaded`).toContain(name);
    expect(loaded()).not.toContain('@opentelemetry/exporter-trace-otlp-http');
  });

  it('an actor with expose_mcp on loads the MCP SDK at start', async () => {
    const { actor, loaded } = await startRecorded([surfaceActor, 'node'], { SURFACE: 'mcp' });
    await waitUntilReady(actor);
    expect(loaded()).toContain('@modelcontextprotocol/sdk');
    expect(loaded()).not.toContain('openai');
  });
});
