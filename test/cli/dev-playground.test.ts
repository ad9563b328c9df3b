// `actorkit dev` on a freshly rendered actor, driven through the playground in Debian's chromium
// (playwright-core): streamed chat, the domain tool, a setting saved and applied, the API key,
// an edit reloaded without restarting dev, a syntax error shown and recovered; then Ctrl-C, a
// port in use, and the same loop under Bun. Screenshots of each step go to test-results/.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSTALLED_RUNTIMES } from '../runtimes/runtime-binaries.mjs';
import { ensureBuilt, REPOSITORY_ROOT } from '../support/built-package.js';
import { ACTORKIT_BINARY, renderActor as renderInScratch } from './support/rendered-actor.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const chromiumMissing = !existsSync(CHROMIUM);
if (chromiumMissing && process.env.CI === 'true')
  throw new Error(`The playground browser test needs chromium at ${CHROMIUM}; CI must not skip it`);

const BINARY = ACTORKIT_BINARY;
const SCREENSHOTS = join(REPOSITORY_ROOT, 'test-results', 'dev-playground');
const scratch = mkdtempSync(join(tmpdir(), 'actorkit-dev-'));
const running: ChildProcess[] = [];
let browser: Browser | undefined;

const renderActor = (name: string) => renderInScratch(scratch, name);

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? done(address.port) : fail(new Error('no port'))));
    });
  });
}

interface DevRun {
  readonly child: ChildProcess;
  readonly port: number;
  readonly base: string;
  output(): string;
  exit: Promise<number | null>;
}

/** Starts `actorkit dev` and waits until the actor behind it answers `/ready` 200. */
async function startDev(
  actorDir: string,
  extraArgs: string[],
  env: Record<string, string | undefined> = {},
): Promise<DevRun> {
  const port = await freePort();
  const child = spawn(process.execPath, [BINARY, 'dev', '.', '--port', String(port), ...extraArgs], {
    cwd: actorDir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const run: DevRun = { child, port, base: `http://127.0.0.1:${port}`, output: () => text, exit };
  await waitUntil(
    async () =>
      (await fetch(`${run.base}/ready`).then(
        (response) => response.status,
        () => 0,
      )) === 200,
    60_000,
    () => `dev never got ready:\n${text}`,
  );
  return run;
}

/** The URL of every IPv4 address of this machine's interfaces, at `port`. */
function interfaceUrls(port: number): Set<string> {
  return new Set(
    Object.values(networkInterfaces())
      .flat()
      .filter((entry) => entry !== undefined && entry.family === 'IPv4')
      .map((entry) => `http://${entry!.address}:${port}/`),
  );
}

/** "actor restarted" is printed when the new actor listens; on a loaded machine it may still be migrating its store. */
async function untilReady(dev: DevRun): Promise<void> {
  await waitUntil(
    async () => (await fetch(`${dev.base}/ready`).catch(() => undefined))?.status === 200,
    30_000,
    () => `not ready after the restart:\n${dev.output()}`,
  );
}

async function waitUntil(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  explain: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((wait) => setTimeout(wait, 200));
  }
  throw new Error(explain());
}

/** Stops dev like Ctrl-C in its terminal and returns its exit code. */
async function interrupt(run: DevRun): Promise<number | null> {
  run.child.kill('SIGINT');
  return run.exit;
}

const shot = (page: Page, name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });

async function openPlayground(run: DevRun): Promise<{ page: Page; outside: string[] }> {
  const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } });
  const outside: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(run.base)) outside.push(request.url());
  });
  const response = await page.goto(`${run.base}/playground`);
  expect(response?.status()).toBe(200);
  await page.locator('body[data-loaded="true"]').waitFor();
  return { page, outside };
}

/** Types a message, presses Enter, and returns the newest transcript entry once the reply is complete. */
async function send(page: Page, message: string) {
  const before = await page.locator('#messages .msg').count();
  await page.locator('#message').fill(message);
  await page.locator('#message').press('Enter');
  await page
    .locator('#messages .msg')
    .nth(before + 1)
    .waitFor();
  await page.locator('#send:not([disabled])').waitFor();
  return page.locator('#messages .msg').last();
}

beforeAll(() => {
  ensureBuilt();
  mkdirSync(SCREENSHOTS, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  for (const child of running) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
});

describe.skipIf(chromiumMissing)('actorkit dev and the playground, in chromium', () => {
  let actorDir: string;
  let dev: DevRun;
  let page: Page;
  let outside: string[];

  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    actorDir = renderActor('demo');
    dev = await startDev(actorDir, [], { API_KEY_ENABLED: 'true', API_KEY: 'dev-key-123' });
    ({ page, outside } = await openPlayground(dev));
  }, 120_000);

  it('prints the URLs and the environment with the secret masked', () => {
    const text = dev.output();
    expect(text).toContain(`playground  ${dev.base}/playground`);
    expect(text).toContain(`docs        ${dev.base}/docs`);
    expect(text).toContain('API_KEY=********');
    expect(text).not.toContain('dev-key-123');
    expect(text).toContain('PLAYGROUND_ENABLED=true');
  });

  it('without a key, says plainly that the actor answered 401', async () => {
    const reply = await send(page, 'hello');
    await expect(reply.getAttribute('data-role')).resolves.toBe('error');
    expect(await reply.locator('.problem-title').textContent()).toMatch(
      /^401 Unauthorized: this actor needs an API key/,
    );
    expect(await reply.locator('.problem-detail').textContent()).toContain('X-API-Key');
    await shot(page, '1-no-key-401');
  }, 30_000);

  it('with the key, streams the reply: text, model and token usage', async () => {
    await page.locator('#api-key').fill('dev-key-123');
    await page.locator('#api-key').press('Tab');
    const reply = await send(page, 'hello there');
    expect(await reply.locator('.text').first().textContent()).toContain('[offline model]');
    expect(await reply.locator('.text').first().textContent()).toContain('hello there');
    expect(await reply.locator('.meta').textContent()).toMatch(/model offline · tokens in \d+ \/ out \d+ \/ total \d+/);
    await shot(page, '2-streamed-reply');
  }, 30_000);

  it('shows the domain tool call with its arguments and output', async () => {
    const reply = await send(page, 'use tool demo_lookup with {"topic": "tides"}');
    const tool = reply.locator('.tool[data-tool="demo_lookup"]');
    expect(await tool.getAttribute('data-status')).toBe('done');
    expect(JSON.parse((await tool.locator('.tool-args').textContent()) ?? '')).toEqual({ topic: 'tides' });
    expect(await tool.locator('.tool-output').textContent()).toContain('Hello! Here is what demo knows about tides');
    await shot(page, '3-tool-call');
  }, 30_000);

  it('saves a conversation as an eval case that `actorkit eval` loads and passes 1/1', async () => {
    const { page: saving } = await openPlayground(dev);
    await saving.locator('#api-key').fill('dev-key-123');
    await saving.locator('#api-key').press('Tab');
    const save = saving.locator('#save-eval-case');
    const status = saving.locator('#eval-case-status');
    await saving.locator('#eval-case-name').fill('saved-from-playground');
    await save.click();
    await saving.locator('#eval-case-status[data-state="failed"]').waitFor();
    expect(await status.textContent()).toContain('the conversation is empty');
    const reply = await send(saving, 'use tool demo_lookup with {"topic": "tides"}');
    expect(await reply.locator('.tool[data-tool="demo_lookup"]').getAttribute('data-status')).toBe('done');
    await save.click();
    await saving.locator('#eval-case-status[data-state="saved"]').waitFor();
    expect(await status.textContent()).toContain('Saved evals/saved-from-playground.yaml');
    await shot(saving, '3b-saved-as-eval-case');
    const file = readFileSync(join(actorDir, 'evals', 'saved-from-playground.yaml'), 'utf8');
    expect(file).toContain(`turns:\n  - 'use tool demo_lookup with {"topic": "tides"}'\n`);
    expect(file).toContain('      - name: demo_lookup\n        args:\n          topic: tides\n');
    await save.click();
    await saving.locator('#eval-case-status[data-state="exists"]').waitFor();
    expect(await status.textContent()).toContain('Eval case exists');
    await saving.locator('#eval-case-name').fill('../outside');
    await save.click();
    await saving.locator('#eval-case-status[data-state="failed"]').waitFor();
    expect(await status.textContent()).toContain('/name');
    await saving.close();

    const evaluated = spawnSync(process.execPath, [BINARY, 'eval', '.', '--filter', 'saved-from-playground'], {
      cwd: actorDir,
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
      encoding: 'utf8',
    });
    expect(evaluated.stderr).not.toContain('error');
    expect(evaluated.stdout).toMatch(/^PASS +saved-from-playground +1\/1 /m);
    expect(evaluated.stdout).toContain('1/1 cases passed, score 100%');
    expect(evaluated.status).toBe(0);
  }, 60_000);

  it('shows a 422 at its field, then saves a setting that the next reply uses', async () => {
    const greeting = page.locator('#setting-demo_greeting');
    await greeting.fill('');
    await page.locator('#save-settings').click();
    await page.locator('.field-error[data-for="demo_greeting"]:not(:empty)').waitFor();
    expect(await page.locator('#settings-status').textContent()).toContain('Validation failed');
    await shot(page, '4a-settings-422');
    await greeting.fill('Howdy');
    await page.locator('#save-settings').click();
    await page.locator('#settings-status[data-state="saved"]').waitFor();
    expect(await page.locator('#settings-status').textContent()).toContain('demo_greeting');
    const reply = await send(page, 'use tool demo_lookup with {"topic": "tides"}');
    expect(await reply.locator('.tool-output').textContent()).toContain('Howdy! Here is what demo knows about tides');
    await shot(page, '4b-setting-applied');
  }, 30_000);

  it('uses an edited tool on the next reply, without restarting dev; history and stats survive the reload', async () => {
    await page
      .locator('[data-stat="invocations"]')
      .filter({ hasText: /^[1-9]/ })
      .waitFor({ timeout: 10_000 });
    const client = join(actorDir, 'src', 'demo', 'client.ts');
    writeFileSync(client, readFileSync(client, 'utf8').replace('nothing yet', 'EDITED WHILE RUNNING'));
    await waitUntil(
      () => dev.output().includes('actor restarted'),
      20_000,
      () => `no restart:\n${dev.output()}`,
    );
    await untilReady(dev);
    const reply = await send(page, 'use tool demo_lookup with {"topic": "reloads"}');
    expect(await reply.locator('.tool-output').textContent()).toContain('EDITED WHILE RUNNING');
    const stats = await fetch(`${dev.base}/stats/default`, { headers: { 'X-API-Key': 'dev-key-123' } }).then(
      (response) => response.json(),
    );
    expect(stats.invocations).toBeGreaterThanOrEqual(4);
    expect(dev.child.exitCode).toBeNull();
    await shot(page, '5-edited-tool');
  }, 40_000);

  it('shows a syntax error in the terminal and the playground, and the next good save recovers', async () => {
    const client = join(actorDir, 'src', 'demo', 'client.ts');
    const good = readFileSync(client, 'utf8');
    writeFileSync(client, `${good}\nexport const broken = (;\n`);
    await page
      .locator('#banner[data-code="actor_failed_to_start"]')
      .waitFor({ timeout: 20_000 })
      .catch((error: Error) => {
        throw new Error(`${error.message}\n--- dev output ---\n${dev.output().slice(-4000)}`);
      });
    expect(await page.locator('#banner .problem-title').textContent()).toBe('Actor failed to start');
    expect(await page.locator('#banner .problem-detail').textContent()).toContain('client.ts');
    expect(dev.output()).toContain('actorkit dev: actor failed to start');
    await shot(page, '6a-syntax-error');
    writeFileSync(client, good);
    await page
      .locator('#banner')
      .waitFor({ state: 'hidden', timeout: 20_000 })
      .catch((error: Error) => {
        throw new Error(`${error.message}\n--- dev output ---\n${dev.output().slice(-4000)}`);
      });
    const reply = await send(page, 'use tool demo_lookup with {"topic": "recovery"}');
    expect(await reply.locator('.tool-output').textContent()).toContain('EDITED WHILE RUNNING');
    await shot(page, '6b-recovered');
  }, 60_000);

  it('keeps sessions in the picker and sends the tenant field as X-Tenant-Id', async () => {
    const earlier = await page.locator('#session').inputValue();
    const earlierCount = await page.locator('#messages .msg').count();
    await page.locator('#tenant').fill('acme');
    await page.locator('#tenant').press('Tab');
    await page.locator('#new-session').click();
    expect(await page.locator('#messages .msg').count()).toBe(0);
    await send(page, 'hello acme');
    await page.locator('[data-stat="invocations"]').filter({ hasText: /^1$/ }).waitFor({ timeout: 10_000 });
    const acme = await fetch(`${dev.base}/stats/acme`, { headers: { 'X-API-Key': 'dev-key-123' } }).then((response) =>
      response.json(),
    );
    expect(acme).toMatchObject({ tenant_id: 'acme', invocations: 1 });
    await shot(page, '7a-tenant-acme');
    await page.locator('#session').selectOption(earlier);
    expect(await page.locator('#messages .msg').count()).toBe(earlierCount);
    expect(await page.locator('#tenant').inputValue()).toBe('default');
    await shot(page, '7b-earlier-session');
  }, 30_000);

  it('checks the configuration again when src/actor.ts changes, and keeps running', async () => {
    const actorFile = join(actorDir, 'src', 'actor.ts');
    const source = readFileSync(actorFile, 'utf8');
    const restarts = () => dev.output().split('actor restarted').length;
    const before = restarts();
    writeFileSync(actorFile, source.replace("    'Hello',\n", "    'Hi there',\n"));
    await waitUntil(
      () => dev.output().includes('configuration check found 1 problem(s) (the actor keeps running)'),
      30_000,
      () => `no config check:\n${dev.output()}`,
    );
    expect(dev.output()).toMatch(/- \[emitter\] \/: src\/platform\/config\.json is stale.*"default": "Hi there"/);
    await waitUntil(
      () => restarts() > before,
      30_000,
      () => `no restart after the change of src/actor.ts:\n${dev.output()}`,
    );
    await untilReady(dev);
    const reply = await send(page, 'still there?');
    expect(await reply.textContent()).toContain('You said: still there?');
  }, 70_000);

  it('loaded nothing from outside the actor (no CDN)', () => {
    expect(outside).toEqual([]);
  });

  it('exits 0 on SIGINT with the store closed', async () => {
    await page.close();
    expect(await interrupt(dev)).toBe(0);
    expect(dev.output()).toContain('"event":"actor_stopped"');
    expect(dev.output()).toContain('actorkit dev: stopped, store closed');
  }, 30_000);
});

describe('actorkit dev without a browser', () => {
  it("with --json, writes only JSON lines of dev events on stdout, the actor's log on stderr", async () => {
    const actorDir = renderActor('jsony');
    const port = await freePort();
    const child = spawn(process.execPath, [BINARY, 'dev', '.', '--port', String(port), '--json'], {
      cwd: actorDir,
      env: { ...process.env, LLM_API_KEY: 'sk-hidden' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await waitUntil(
      () => stdout.includes('"state":"running"'),
      60_000,
      () => `never running:\n${stdout}\n${stderr}`,
    );
    child.kill('SIGINT');
    expect(await exit).toBe(0);
    const events = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events[0]).toMatchObject({
      event: 'dev_started',
      runtime: 'node',
      port,
      urls: {
        api: `http://127.0.0.1:${port}/`,
        playground: `http://127.0.0.1:${port}/playground`,
        docs: `http://127.0.0.1:${port}/docs`,
      },
      environment: { PORT: String(port), LLM_API_KEY: '********', PLAYGROUND_ENABLED: 'true' },
    });
    expect(events.at(-1)).toEqual({ event: 'dev_stopped', exit_code: 0, store_closed: true });
    expect(stdout).not.toContain('sk-hidden');
    const listening = stderr
      .split('\n')
      .filter((line) => line.includes('"event":"actor_listening"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    // Only the dev proxy answers from outside: the actor behind it listens on loopback.
    expect(listening[0]).toMatchObject({ hostname: '127.0.0.1' });
  }, 90_000);
});

describe('actorkit dev refusals', () => {
  let blocker: Server;
  afterAll(() => blocker?.close());

  it('fails with exit 1 and a clear message when the port is in use', async () => {
    const actorDir = renderActor('busy');
    const port = await freePort();
    blocker = createServer().listen(port, '127.0.0.1');
    await new Promise((resolve) => blocker.once('listening', resolve));
    const result = spawnSync(process.execPath, [BINARY, 'dev', '.', '--port', String(port)], {
      cwd: actorDir,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.stderr).toBe(
      `error: port ${port} is already in use on 127.0.0.1: stop what listens there or pick another port with --port\n`,
    );
    expect(result.status).toBe(1);
  }, 60_000);

  let exposed: string | undefined;
  const exposedActor = () => (exposed ??= renderActor('exposed'));

  it('refuses a non-loopback --host without an API key, with exit 2 and what to set', () => {
    const actorDir = exposedActor();
    for (const env of [
      {},
      { API_KEY_ENABLED: 'true' },
      { API_KEY: 'k-123' },
      { API_KEY_ENABLED: 'true', API_KEY: 'k-123', ACTOR_PLATFORM: 'true' },
    ]) {
      const result = spawnSync(process.execPath, [BINARY, 'dev', '.', '--host', '0.0.0.0', '--port', '0'], {
        cwd: actorDir,
        env: { ...process.env, ...env },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(result.stderr, JSON.stringify(env)).toContain(
        '--host 0.0.0.0 serves the actor to other machines: set API_KEY_ENABLED=true and API_KEY',
      );
      expect(result.status, JSON.stringify(env)).toBe(2);
    }
  }, 60_000);

  it('on a non-loopback --host with an API key, warns and prints every URL it serves', async () => {
    const actorDir = exposedActor();
    const port = await freePort();
    const before = interfaceUrls(port);
    const child = spawn(process.execPath, [BINARY, 'dev', '.', '--host', '0.0.0.0', '--port', String(port), '--json'], {
      cwd: actorDir,
      env: { ...process.env, API_KEY_ENABLED: 'true', API_KEY: 'k-123' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.push(child);
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await waitUntil(
      () => stdout.includes('"event":"dev_started"'),
      60_000,
      () => `never started:\n${stdout}`,
    );
    child.kill('SIGINT');
    await exit;
    const started = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((event) => event.event === 'dev_started')!;
    // Interfaces may come and go meanwhile (a container engine's bridge while the image tests run):
    // every address present before and after is served, and nothing else than those seen is.
    const after = interfaceUrls(port);
    const served = (started.urls as { served: string[] }).served;
    expect(served).toEqual(expect.arrayContaining([...before].filter((url) => after.has(url))));
    expect(served.filter((url) => !before.has(url) && !after.has(url))).toEqual([]);
    expect(served).toContain(`http://127.0.0.1:${port}/`);
    expect(String(started.warning)).toContain('reachable from other machines');
  }, 60_000);

  it('refuses a folder that is no actor, and a bad --port or --runtime, with exit 2', () => {
    const notActor = spawnSync(process.execPath, [BINARY, 'dev', scratch], {
      cwd: scratch,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(notActor.stderr).toBe(`error: ${scratch} is not an actor folder (no package.json)\n`);
    expect(notActor.status).toBe(2);
    const badPort = spawnSync(process.execPath, [BINARY, 'dev', '.', '--port', 'eighty'], {
      cwd: scratch,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(badPort.stderr).toContain("--port must be a number from 0 to 65535, got 'eighty'");
    expect(badPort.status).toBe(2);
    const badRuntime = spawnSync(process.execPath, [BINARY, 'dev', join(scratch, 'busy'), '--runtime', 'deno'], {
      cwd: scratch,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(badRuntime.stderr).toContain("--runtime must be one of node, bun, got 'deno'");
    expect(badRuntime.status).toBe(2);
  }, 60_000);
});

const bun = INSTALLED_RUNTIMES.find((runtime) => runtime.name === 'bun');

describe.skipIf(chromiumMissing || bun === undefined || !existsSync(bun.path))('actorkit dev --runtime bun', () => {
  it('serves the playground, reloads an edited tool, and exits 0 on SIGINT with the store closed', async () => {
    browser ??= await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    const actorDir = renderActor('bunny');
    const binDir = join(bun!.path, '..');
    const dev = await startDev(actorDir, ['--runtime', 'bun'], { PATH: `${binDir}:${process.env.PATH ?? ''}` });
    const { page } = await openPlayground(dev);
    const first = await send(page, 'use tool bunny_lookup with {"topic": "buns"}');
    expect(await first.locator('.tool-output').textContent()).toContain('Hello! Here is what bunny knows about buns');
    await shot(page, 'bun-1-reply');
    const client = join(actorDir, 'src', 'bunny', 'client.ts');
    writeFileSync(client, readFileSync(client, 'utf8').replace('nothing yet', 'EDITED UNDER BUN'));
    await waitUntil(
      () => dev.output().includes('actor restarted'),
      20_000,
      () => `no restart under bun:\n${dev.output()}`,
    );
    const second = await send(page, 'use tool bunny_lookup with {"topic": "buns"}');
    expect(await second.locator('.tool-output').textContent()).toContain('EDITED UNDER BUN');
    await shot(page, 'bun-2-reloaded');
    await page.close();
    expect(await interrupt(dev)).toBe(0);
    expect(dev.output()).toContain('actorkit dev: stopped, store closed');
  }, 120_000);
});
