import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import type { PlatformReady } from '../../platform/platform-ready.js';
import { ACTORKIT_BINARY } from '../cli/support/rendered-actor.js';
import { REPOSITORY_ROOT } from '../support/built-package.js';

async function onServer<T>(baseUrl: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** Creates a database of its own for one test file on the server of `baseUrl`; returns its URL and how to drop it. */
export async function freshDatabase(baseUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `actorkit_platform_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  await onServer(baseUrl, (client) => client.query(`create database ${name}`));
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    drop: () =>
      onServer(baseUrl, (client) => client.query(`drop database if exists ${name} with (force)`)).then(() => undefined),
  };
}

/**
 * Renders an actor with the built `actorkit new --defaults` (and `--data` answers) in
 * `parentDir`, and links what its build needs from this checkout (actorkit, valibot,
 * TypeScript, Node's types) instead of `npm install`.
 * @returns the actor's folder
 */
export function renderBuildableActor(parentDir: string, name: string, data: readonly string[] = []): string {
  const created = spawnSync(
    process.execPath,
    [ACTORKIT_BINARY, 'new', name, '--defaults', ...data.flatMap((pair) => ['--data', pair])],
    { cwd: parentDir, encoding: 'utf8' },
  );
  if (created.status !== 0) throw new Error(`actorkit new ${name} failed:\n${created.stderr}`);
  const dir = join(parentDir, name);
  const modules = join(dir, 'node_modules');
  mkdirSync(join(modules, '@types'), { recursive: true });
  mkdirSync(join(modules, '.bin'), { recursive: true });
  symlinkSync(REPOSITORY_ROOT, join(modules, 'actorkit'), 'dir');
  for (const name of ['valibot', 'typescript', join('@types', 'node')])
    symlinkSync(join(REPOSITORY_ROOT, 'node_modules', name), join(modules, name), 'dir');
  symlinkSync(join('..', 'typescript', 'bin', 'tsc'), join(modules, '.bin', 'tsc'));
  return dir;
}

/** A running `actorkit platform --json` process. */
export interface PlatformProcess {
  readonly child: ChildProcess;
  /** The object it printed when up. */
  readonly ready: PlatformReady;
  /** Everything it wrote on standard error so far (progress and reports in JSON mode). */
  stderr(): string;
  /** Resolves with the exit code. */
  readonly exited: Promise<number | null>;
}

/** Runs `actorkit platform <args> --json --port 0` and waits for its ready line. */
export function startPlatform(
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string | undefined> },
): Promise<PlatformProcess> {
  const child = spawn(process.execPath, [ACTORKIT_BINARY, 'platform', ...args, '--json', '--port', '0'], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) =>
      resolve({ child, ready: JSON.parse(line) as PlatformReady, stderr: () => stderr, exited }),
    );
    void exited.then((code) => reject(new Error(`actorkit platform exited (${code}) before it was up:\n${stderr}`)));
  });
}

/** Runs `actorkit platform <args>` to its end (a refusal); returns its exit code and output. */
export function runPlatformToEnd(
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string | undefined> },
): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [ACTORKIT_BINARY, 'platform', ...args, '--port', '0'], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Waits until `check` holds, polling every 100 ms, or fails after `timeoutMs` naming `what`. */
export async function eventually(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((wait) => setTimeout(wait, 100));
  }
}
