import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RuntimeProcess } from './runtimes-under-test.js';

/** How a spawned actor process ended. */
export interface ActorExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A real actor server running as a child process. */
export interface SpawnedActor {
  /** `http://127.0.0.1:<port>`, from the `actor_listening` log line. */
  readonly baseUrl: string;
  readonly child: ChildProcess;
  /** Every JSON log line the process wrote so far (stdout and stderr). */
  readonly logs: Record<string, unknown>[];
  /** Everything the process wrote, for failure messages. */
  output(): string;
  /** Resolves when the process has exited and its output has been read to the end. */
  readonly exited: Promise<ActorExit>;
  /** Kills the process (SIGKILL) if it still runs and removes its data folder. */
  dispose(): Promise<void>;
}

/** Characters of output a draining spawn keeps for failure messages. */
const DRAINED_OUTPUT_KEPT = 64 * 1024;

const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Resolves with `value` or rejects after `ms`, naming `what` in the error. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

/**
 * Starts the built example actor under `runtime` on a free port (`PORT=0`) with an in-memory
 * database and a temporary `DATA_DIR`, and resolves once its `actor_listening` line names the
 * port. The child gets a minimal environment, so nothing of the test host leaks in.
 * @param runtime what to run
 * @param env extra environment variables
 * @param options `drainAfterListening`: once listening, read the output without parsing it and keep
 * only its last 64 KiB (benchmarks: parsing a log line per request would take CPU from the actor
 * on the same cores, and `logs` stops growing).
 */
export async function spawnActor(
  runtime: RuntimeProcess,
  env: Record<string, string> = {},
  options: { drainAfterListening?: boolean } = {},
): Promise<SpawnedActor> {
  const dataDir = mkdtempSync(join(tmpdir(), `actorkit-contract-${runtime.name}-`));
  const child = spawn(runtime.command, [...runtime.args], {
    cwd: repositoryRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? dataDir,
      TMPDIR: tmpdir(),
      NO_COLOR: '1',
      DENO_NO_UPDATE_CHECK: '1',
      PORT: '0',
      DATABASE_URL: 'memory://',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      ...env,
    },
  });
  const logs: Record<string, unknown>[] = [];
  let output = '';
  let onListening: ((url: string) => void) | undefined;
  let draining = false;
  const listening = new Promise<string>((resolve) => {
    onListening = (url) => {
      draining = options.drainAfterListening === true;
      resolve(url);
    };
  });
  const collect = (stream: NodeJS.ReadableStream) => {
    let partial = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      if (draining) {
        output = (output + chunk).slice(-DRAINED_OUTPUT_KEPT);
        return;
      }
      output += chunk;
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.startsWith('{')) continue;
        try {
          const record = JSON.parse(line) as Record<string, unknown>;
          logs.push(record);
          if (record.event === 'actor_listening' && typeof record.port === 'number')
            onListening?.(`http://127.0.0.1:${record.port}`);
        } catch {
          // Not a log record: kept in `output` only.
        }
      }
    });
  };
  collect(child.stdout);
  collect(child.stderr);
  const exited = new Promise<ActorExit>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  const dispose = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const baseUrl = await within(
      Promise.race([
        listening,
        exited.then((exit) =>
          Promise.reject(new Error(`exited before listening (code ${exit.code}, signal ${exit.signal})`)),
        ),
      ]),
      30_000,
      `${runtime.name} actor_listening`,
    );
    return { baseUrl, child, logs, output: () => output, exited, dispose };
  } catch (error) {
    await dispose();
    throw new Error(
      `${runtime.name} (${runtime.command} ${runtime.args.join(' ')}) did not start: ${(error as Error).message}\n${output}`,
    );
  }
}

/** Polls `GET /ready` until it answers 200; throws with the last answer after `timeoutMs`. */
export async function waitUntilReady(actor: SpawnedActor, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    const response = await fetch(`${actor.baseUrl}/ready`);
    last = `${response.status} ${await response.text()}`;
    if (response.status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`/ready never answered 200 within ${timeoutMs} ms; last: ${last}\n${actor.output()}`);
}

/**
 * Resolves with the first log record of `event`, waiting for it up to `timeoutMs`: an actor
 * writes its info lines at the end of an event-loop turn, so a line may reach the pipe just
 * after the HTTP answer that followed it.
 */
export async function waitForLogEvent(
  actor: SpawnedActor,
  event: string,
  timeoutMs = 5_000,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const record = actor.logs.find((candidate) => candidate.event === event);
    if (record !== undefined) return record;
    if (Date.now() > deadline) throw new Error(`no ${event} log line within ${timeoutMs} ms\n${actor.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
