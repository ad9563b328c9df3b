import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { INSTALLED_RUNTIMES } from '../runtimes/runtime-binaries.mjs';
import { listenOnLoopback, type LoopbackServer } from '../surfaces/loopback.js';

const ROOT = resolve(import.meta.dirname, '../..');
const BINARY = join(ROOT, 'dist', 'cli', 'main.js');
const scratch = mkdtempSync(join(tmpdir(), 'actorkit-loop-'));
const actorDir = join(scratch, 'demo');
const running: ChildProcess[] = [];

/** Signals a server's process group; one that has just exited (its exit not yet seen) is fine. */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

afterAll(() => {
  for (const child of running) killGroup(child, 'SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
});

function run(command: string, args: string[], cwd: string, timeout = 120_000) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout, env: { ...process.env, CI: 'true' } });
  return { code: result.status, output: `${result.stdout}${result.stderr}`.replace(/\x1b\[[0-9;]*m/g, '') };
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? done(address.port) : fail(new Error('no port'))));
    });
  });
}

/** Starts a server process in its own process group and waits for `/ready` 200. */
async function serveUntilReady(
  command: string,
  args: string[],
  port: number,
  { cwd = actorDir, env = {} }: { cwd?: string; env?: Record<string, string> } = {},
): Promise<ChildProcess> {
  const child = spawn(command, args, {
    cwd,
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, PORT: String(port), DATA_DIR: join(scratch, `data-${port}`), ...env },
  });
  running.push(child);
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${command} ${args.join(' ')} exited with ${child.exitCode}`);
    const ready = await fetch(`http://127.0.0.1:${port}/ready`).then(
      (response) => response.status,
      () => 0,
    );
    if (ready === 200) return child;
    await new Promise((wait) => setTimeout(wait, 250));
  }
  throw new Error(`${command} ${args.join(' ')}: /ready did not answer 200 within 90 s`);
}

async function invoke(port: number) {
  const response = await fetch(`http://127.0.0.1:${port}/agent/invoke`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      user_identifier: 'loop',
      session_id: 'loop-1',
      message: 'use tool demo_lookup with {"topic": "loops"}',
    }),
  });
  return { status: response.status, body: await response.json() };
}

function stop(child: ChildProcess) {
  killGroup(child, 'SIGTERM');
}

/** The npm warnings of an install but the one the rendered README explains (npm 11 lists the denied actorkit prepare of vendor/). */
function unexplainedInstallWarnings(output: string): string[] {
  const warnings = output.split('\n').filter((line) => line.startsWith('npm warn'));
  expect(warnings.filter((line) => /^npm warn install-scripts {3}\S/.test(line))).toEqual(
    warnings.some((line) => line.includes('actorkit@'))
      ? [expect.stringMatching(/ actorkit@\S+ \(prepare: npm run build\)$/)]
      : [],
  );
  return warnings.filter((line) => !line.startsWith('npm warn install-scripts'));
}

/** An OTLP/HTTP receiver on loopback that keeps the JSON body of every POST to /v1/traces. */
async function startTraceReceiver(): Promise<LoopbackServer & { readonly exports: unknown[] }> {
  const exports: unknown[] = [];
  const server = await listenOnLoopback(function traceReceiver(request, response) {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method === 'POST' && request.url === '/v1/traces')
        exports.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return Object.assign(server, { exports });
}

/** The names of the spans in OTLP/JSON trace exports. */
function spanNames(exports: readonly unknown[]): string[] {
  type Export = { resourceSpans?: { scopeSpans?: { spans?: { name: string }[] }[] }[] };
  return (exports as Export[]).flatMap((body) =>
    (body.resourceSpans ?? []).flatMap((resource) =>
      (resource.scopeSpans ?? []).flatMap((scope) => (scope.spans ?? []).map((span) => span.name)),
    ),
  );
}

describe('the author loop on a fresh actor: new, npm install, validate, npm test, npm start, Bun', () => {
  it('renders with --defaults', () => {
    const created = run(process.execPath, [BINARY, 'new', 'demo', '--defaults'], scratch);
    expect(created.output).toContain('1. cd demo && npm install && npm start');
    expect(created.output).toContain('3. npm run validate');
    expect(created.code).toBe(0);
  });

  it('installs', () => {
    const installed = run('npm', ['install', '--no-audit', '--no-fund'], actorDir, 240_000);
    expect(installed.code, installed.output).toBe(0);
    expect(unexplainedInstallWarnings(installed.output)).toEqual([]);
  }, 300_000);

  it('validates with its own installed actorkit', () => {
    const validated = run(join(actorDir, 'node_modules', '.bin', 'actorkit'), ['validate', '.'], actorDir);
    expect(validated.output).toMatch(/using the actor's own actorkit/i);
    expect(validated.output).toMatch(/OK\n$/);
    expect(validated.code).toBe(0);
  });

  it('passes its own tests', () => {
    const tested = run('npm', ['test'], actorDir, 180_000);
    expect(tested.output).toMatch(/Tests\s+\d+ passed/);
    expect(tested.code, tested.output).toBe(0);
  }, 200_000);

  it('with a model server configured, its tests still pass: they pin the offline model', () => {
    const configured = join(scratch, 'configured');
    const created = run(
      process.execPath,
      [
        BINARY,
        'new',
        'demo',
        configured,
        '--defaults',
        '--data',
        'llm_base_url=http://127.0.0.1:9/v1',
        '--data',
        'llm_model=x',
      ],
      scratch,
    );
    expect(created.code, created.output).toBe(0);
    // The same dependencies as the actor installed above: share its node_modules instead of a second npm install.
    symlinkSync(join(actorDir, 'node_modules'), join(configured, 'node_modules'));
    const tested = run('npm', ['test'], configured, 180_000);
    expect(tested.output).toMatch(/Tests\s+\d+ passed/);
    expect(tested.code, tested.output).toBe(0);
  }, 200_000);

  it('starts with npm start and answers with the offline model calling its tool', async () => {
    const port = await freePort();
    const server = await serveUntilReady('npm', ['start'], port);
    const { status, body } = await invoke(port);
    expect(status).toBe(200);
    expect(body).toMatchObject({ model: 'offline', tool_calls: [{ name: 'demo_lookup', status: 'ok' }] });
    // Try-it out of the box: swagger-ui-dist is a dev dependency of the rendered actor.
    const docs = await fetch(`http://127.0.0.1:${port}/docs`);
    expect(await docs.text()).toContain('src="docs?asset=swagger-ui-bundle.js"');
    const bundle = await fetch(`http://127.0.0.1:${port}/docs?asset=swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect((await bundle.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
    stop(server);
  }, 120_000);

  it('with tracing=true, installs the OpenTelemetry packages at the ranges of actorkit and exports a chat turn', async () => {
    const traced = join(scratch, 'traced');
    const created = run(
      process.execPath,
      [BINARY, 'new', 'demo', traced, '--defaults', '--data', 'tracing=true'],
      scratch,
    );
    expect(created.code, created.output).toBe(0);
    const { peerDependencies } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      peerDependencies: Record<string, string>;
    };
    const { dependencies } = JSON.parse(readFileSync(join(traced, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const openTelemetry = (ranges: Record<string, string>) =>
      Object.entries(ranges).filter(([name]) => name.startsWith('@opentelemetry/'));
    expect(openTelemetry(dependencies)).toEqual(openTelemetry(peerDependencies));
    expect(openTelemetry(dependencies)).toHaveLength(7);
    const installed = run('npm', ['install', '--no-audit', '--no-fund'], traced, 240_000);
    expect(installed.code, installed.output).toBe(0);
    expect(unexplainedInstallWarnings(installed.output)).toEqual([]);

    const receiver = await startTraceReceiver();
    try {
      const port = await freePort();
      const server = await serveUntilReady('npm', ['start'], port, {
        cwd: traced,
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
      });
      expect((await invoke(port)).status).toBe(200);
      stop(server); // the exporter flushes its batch on shutdown
      const deadline = Date.now() + 30_000;
      while (!spanNames(receiver.exports).includes('invoke_agent demo') && Date.now() < deadline)
        await new Promise((wait) => setTimeout(wait, 250));
      expect(spanNames(receiver.exports)).toEqual(
        expect.arrayContaining(['POST /agent/invoke', 'invoke_agent demo', 'execute_tool demo_lookup']),
      );
    } finally {
      await receiver.close();
    }
  }, 420_000);

  it('runs under Bun', async () => {
    const bun = INSTALLED_RUNTIMES.find((runtime) => runtime.name === 'bun');
    expect(bun, 'bun is installed by test/runtimes/ensure-runtimes.mjs').toBeDefined();
    const port = await freePort();
    const server = await serveUntilReady(bun!.path, ['src/main.bun.ts'], port);
    const { status, body } = await invoke(port);
    expect(status).toBe(200);
    expect(body.message.content).toContain('loops');
    stop(server);
  }, 120_000);
});
