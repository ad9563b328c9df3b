import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTORKIT_BINARY, renderActor } from '../cli/support/rendered-actor.js';
import { ensureBuilt } from '../support/built-package.js';

// `actorkit dev` on a freshly rendered actor, stopped the ways a terminal and a supervisor stop
// it: a signal to its whole process group (SIGTERM, and SIGINT as Ctrl-C sends it; the group
// is `actorkit dev … | cat`, so the reader of its output goes away with it), and SIGKILL of the
// dev process alone. Each time, no process of the actor (the actor, the warm spare, tsx's
// esbuild) may be left, and the actor's port must be free. Linux: processes are found by their
// working directory in /proc.

const RUNS = Number(process.env.DEV_SIGNAL_RUNS ?? 5);
const scratch = mkdtempSync(join(tmpdir(), 'actorkit-dev-signals-'));
let actorDir: string;

/** The processes whose working directory is `dir`, with their command lines. */
function processesIn(dir: string): { pid: number; command: string }[] {
  const found: { pid: number; command: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/cwd`) !== dir) continue;
      found.push({
        pid: Number(entry),
        command: readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').trim(),
      });
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** Whether something accepts connections on the port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

async function waitFor<T>(check: () => T | undefined | false, timeoutMs: number, explain: () => string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(explain());
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface DevGroup {
  /** The shell leading the group: `actorkit dev … 2>&1 | cat`. */
  readonly shell: ChildProcess;
  readonly devPid: number;
  readonly devPort: number;
  readonly actorPort: number;
  output(): string;
}

/** Starts `actorkit dev … 2>&1 | cat` as its own process group and waits until the actor listens and the warm spare is up. */
async function startDevGroup(): Promise<DevGroup> {
  const devPort = await freePort();
  const shell = spawn('sh', ['-c', `"${process.execPath}" "${ACTORKIT_BINARY}" dev . --port ${devPort} 2>&1 | cat`], {
    cwd: actorDir,
    detached: true,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let text = '';
  shell.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const explain = () => `actorkit dev did not come up:\n${text}\nprocesses: ${JSON.stringify(processesIn(actorDir))}`;
  const listeningLine = await waitFor(
    () => /\{[^\n]*"event":"actor_listening"[^\n]*\}/.exec(text)?.[0],
    60_000,
    explain,
  );
  const actorPort = (JSON.parse(listeningLine) as { port: number }).port;
  // Started up and quiet: an actor still writing its start-up lines when dev dies would end on the broken pipe by chance.
  await waitFor(() => text.includes('"event":"actor_ready"'), 30_000, explain);
  await waitFor(() => processesIn(actorDir).some((process) => process.command.includes('warm-start')), 30_000, explain);
  const dev = await waitFor(
    () => processesIn(actorDir).find((process) => process.command.includes(`${ACTORKIT_BINARY} dev`)),
    5_000,
    explain,
  );
  return { shell, devPid: dev.pid, devPort, actorPort, output: () => text };
}

/** Waits (bounded) until no process of the actor is left and neither port answers. */
async function expectNothingLeft(group: DevGroup, what: string): Promise<void> {
  const left = await waitFor(
    () => {
      const processes = processesIn(actorDir);
      return processes.length === 0 ? [] : undefined;
    },
    30_000,
    () =>
      `${what}: processes left after 30 s:\n${processesIn(actorDir)
        .map((process) => `  ${process.pid} ${process.command}`)
        .join('\n')}\n--- output ---\n${group.output().slice(-3000)}`,
  ).catch((error: Error) => error);
  expect(left instanceof Error ? left.message : '', what).toBe('');
  for (const [port, whose] of [
    [group.actorPort, "the actor's port"],
    [group.devPort, 'the dev port'],
  ] as const) {
    const deadline = Date.now() + 10_000;
    while ((await listening(port)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await listening(port), `${what}: ${whose} still answers after 10 s`).toBe(false);
  }
}

beforeAll(() => {
  ensureBuilt();
  actorDir = realpathSync(renderActor(scratch, 'signals'));
}, 60_000);

afterAll(() => {
  for (const { pid } of processesIn(actorDir ?? scratch)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  rmSync(scratch, { recursive: true, force: true });
});

const stops: readonly { readonly name: string; readonly stop: (group: DevGroup) => void }[] = [
  { name: 'SIGTERM to the whole process group', stop: (group) => process.kill(-group.shell.pid!, 'SIGTERM') },
  { name: 'SIGINT to the whole process group (Ctrl-C)', stop: (group) => process.kill(-group.shell.pid!, 'SIGINT') },
  { name: 'SIGKILL of the dev process alone', stop: (group) => process.kill(group.devPid, 'SIGKILL') },
];

describe('actorkit dev stopped by a signal leaves no process behind', () => {
  for (const { name, stop } of stops) {
    it(
      `${name}: the actor and its warm spare stop too (${RUNS} runs)`,
      async () => {
        for (let run = 1; run <= RUNS; run += 1) {
          const group = await startDevGroup();
          stop(group);
          await expectNothingLeft(group, `${name}, run ${run}`);
        }
      },
      RUNS * 90_000,
    );
  }
});
