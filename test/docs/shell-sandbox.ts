import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPOSITORY_ROOT } from '../support/built-package.js';
import { createStandInContainerCli } from '../cli/support/stand-in-container-cli.js';

/** The port the docs' shell examples talk to (`localhost:8080`, what `npm start` serves). */
export const DOCUMENTED_PORT = 8080;

/** What running one shell example gave. */
export interface ShellRun {
  readonly code: number | null;
  readonly output: string;
}

/**
 * Where the docs' `sh` examples run: each in its own empty folder, with `bash -e -o pipefail`,
 * and on `PATH`:
 * - `actorkit`: this checkout's built CLI (`node dist/cli/main.js`);
 * - `npm`: a stand-in for a bare `npm install`/`npm i`/`npm ci` only (no network here), which
 *   links each dependency of the folder's package.json from this checkout (`actorkit` is the
 *   checkout itself); every other npm command is passed to the real npm;
 * - `docker`: a stand-in container CLI that records its calls and succeeds;
 * - `curl`: the real curl with `--fail-with-body`, so an HTTP error fails the block.
 * `localhost:8080` in a block is rewritten to the port of the example actor the sandbox started.
 */
export interface ShellSandbox {
  run(code: string): Promise<ShellRun>;
  close(): Promise<void>;
}

/**
 * Starts the README's example actor (`dist/examples/hello-actor/src/main.node.js`, what
 * `npm start` runs) on a free port with an in-memory database, waits until it is ready, and
 * prepares the stand-ins. Call `close` to stop it and remove the folders.
 */
export async function openShellSandbox(): Promise<ShellSandbox> {
  const root = mkdtempSync(join(tmpdir(), 'actorkit-docs-'));
  const bin = join(root, 'bin');
  mkdirSync(bin, { recursive: true });
  const containerCli = createStandInContainerCli(root);
  const realNpm = spawnSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout.trim();
  const realCurl = spawnSync('sh', ['-c', 'command -v curl'], { encoding: 'utf8' }).stdout.trim();
  writeExecutable(
    join(bin, 'actorkit'),
    `#!/bin/sh\nexec "${process.execPath}" "${join(REPOSITORY_ROOT, 'dist', 'cli', 'main.js')}" "$@"\n`,
  );
  writeExecutable(join(bin, 'curl'), `#!/bin/sh\nexec "${realCurl}" --fail-with-body "$@"\n`);
  writeExecutable(join(bin, 'npm'), npmStandIn(realNpm));
  const port = await freePort();
  const actor = await startExampleActor(port, join(root, 'data'));
  let counter = 0;
  return {
    async run(code) {
      const cwd = join(root, `block-${++counter}`);
      mkdirSync(cwd);
      const script = code.replaceAll(`localhost:${DOCUMENTED_PORT}`, `localhost:${port}`);
      const env = {
        ...containerCli.env({ PLATFORM_URL: 'http://localhost:3000' }),
        PATH: `${bin}:${containerCli.binDir}:${process.env.PATH}`,
      };
      return runBash(script, cwd, env);
    },
    async close() {
      actor.kill('SIGTERM');
      await new Promise((done) => (actor.exitCode === null ? actor.once('exit', done) : done(undefined)));
      rmSync(root, { recursive: true, force: true });
    },
  };
}

function writeExecutable(path: string, content: string): void {
  writeFileSync(path, content);
  chmodSync(path, 0o755);
}

function npmStandIn(realNpm: string): string {
  return `#!${process.execPath}
const { existsSync, mkdirSync, readFileSync, symlinkSync } = require('node:fs');
const { dirname, join } = require('node:path');
const args = process.argv.slice(2);
if (!(args.length === 1 && ['install', 'i', 'ci'].includes(args[0]))) {
  const run = require('node:child_process').spawnSync(${JSON.stringify(realNpm)}, args, { stdio: 'inherit' });
  process.exit(run.status ?? 1);
}
if (!existsSync('package.json')) { console.error('stand-in npm install: no package.json in ' + process.cwd()); process.exit(1); }
const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
for (const name of Object.keys({ ...manifest.dependencies, ...manifest.devDependencies })) {
  const source = name === 'actorkit' ? ${JSON.stringify(REPOSITORY_ROOT)} : join(${JSON.stringify(join(REPOSITORY_ROOT, 'node_modules'))}, name);
  if (!existsSync(source)) { console.error('stand-in npm install: ' + name + ' is not in the checkout'); process.exit(1); }
  const target = join('node_modules', name);
  mkdirSync(dirname(target), { recursive: true });
  if (!existsSync(target)) symlinkSync(source, target);
}
console.log('stand-in npm install: linked ' + Object.keys({ ...manifest.dependencies, ...manifest.devDependencies }).length + ' packages');
`;
}

function runBash(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<ShellRun> {
  return new Promise((done) => {
    const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, output });
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => done(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

async function startExampleActor(port: number, dataDir: string): Promise<ChildProcess> {
  const entry = join(REPOSITORY_ROOT, 'dist', 'examples', 'hello-actor', 'src', 'main.node.js');
  const child = spawn(process.execPath, [entry], {
    cwd: REPOSITORY_ROOT,
    env: { PATH: process.env.PATH, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the example actor exited with ${child.exitCode}: ${stderr}`);
    const ready = await fetch(`http://127.0.0.1:${port}/ready`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return child;
    await new Promise((wait) => setTimeout(wait, 200));
  }
  child.kill('SIGKILL');
  throw new Error(`the example actor did not become ready on port ${port} within 30 s: ${stderr}`);
}
