import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { freeLocalPort } from '../free-local-port.js';
import { signalProcess } from '../signal-process.js';
import type { ReplicaState, ReplicaView } from './actor-pool.js';

/** How many lines of a replica's output the platform keeps. */
const KEPT_LINES = 50;
/** How often, and how long at most, the readiness probe is asked. */
const PROBE_EVERY_MS = 500;
const PROBE_TIMEOUT_MS = 1_000;
/** The first wait before a dead replica is started again; doubled after each death without reaching ready, up to the cap. */
const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 10_000;

/** What a replica slot needs: how to start its process, where to probe it, and whom to tell. */
export interface ReplicaSlotOptions {
  readonly index: number;
  /** The actor folder: the working directory of the process. */
  readonly cwd: string;
  /** The program and arguments of the process (`node … dist/main.node.js`). */
  readonly command: readonly [string, ...string[]];
  /** The environment of every process of the slot, without `PORT` (the slot picks one per start). */
  readonly env: Readonly<Record<string, string>>;
  /** The readiness path (`deployment.readiness_path`, else the health path). */
  readonly probePath: string;
  /** Told what happens: a restart, a death. */
  readonly report: (message: string) => void;
}

/**
 * One replica of an actor, as a Kubernetes pod slot: it starts the process with a free `PORT`,
 * polls its readiness probe (`ready` on 200, else `not_ready`; `starting` until the first
 * answer), keeps its last output lines, and starts it again after it dies, waiting 0.5 s, then
 * twice as long after each death that came before it was ready (at most 10 s).
 */
export class ReplicaSlot {
  readonly #options: ReplicaSlotOptions;
  #child: ChildProcess | undefined;
  #closed: Promise<void> = Promise.resolve();
  #state: ReplicaState = 'starting';
  #url = '';
  #restarts = 0;
  #startedAt = new Date().toISOString();
  #lines: string[] = [];
  #backoffMs = FIRST_BACKOFF_MS;
  #stopping = false;
  #probe: NodeJS.Timeout | undefined;
  #restartTimer: NodeJS.Timeout | undefined;

  constructor(options: ReplicaSlotOptions) {
    this.#options = options;
  }

  /** The slot as the dashboard and the round-robin see it. */
  view(): ReplicaView {
    return { index: this.#options.index, url: this.#url, state: this.#state, pid: this.#child?.pid, restarts: this.#restarts, startedAt: this.#startedAt, lastLines: [...this.#lines] };
  }

  /** Whether the round-robin may send to it. */
  get ready(): boolean {
    return this.#state === 'ready';
  }

  /** The replica's current address. */
  get url(): string {
    return this.#url;
  }

  /** Starts the first process. */
  async start(): Promise<void> {
    const port = await freeLocalPort();
    if (this.#stopping) return;
    this.#url = `http://127.0.0.1:${port}`;
    this.#startedAt = new Date().toISOString();
    this.#state = 'starting';
    // Its standard input is a pipe it watches: the process ends when the platform is gone (see `exit-with-parent.ts`).
    const [program, ...args] = this.#options.command;
    const child = spawn(program, args, { cwd: this.#options.cwd, env: { ...this.#options.env, PORT: String(port) }, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin?.on('error', () => undefined);
    this.#child = child;
    this.#follow(child.stdout);
    this.#follow(child.stderr);
    this.#closed = new Promise((resolve) => {
      child.once('error', (error) => {
        this.#keep(`could not start: ${error.message}`);
        resolve();
      });
      child.once('close', (code, signal) => {
        this.#onExit(code, signal);
        resolve();
      });
    });
    this.#probe = setInterval(() => void this.#askReadiness(port), PROBE_EVERY_MS);
  }

  /**
   * Stops the slot for good: `draining` (no new requests), SIGTERM (the actor's graceful
   * shutdown), then SIGKILL to its group when it has not exited within `graceMs`.
   * @param graceMs how long the replica may take to drain
   */
  async stop(graceMs: number): Promise<void> {
    this.#stopping = true;
    clearTimeout(this.#restartTimer);
    clearInterval(this.#probe);
    const child = this.#child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) {
      this.#state = 'exited';
      return;
    }
    this.#state = 'draining';
    signalProcess(child, 'SIGTERM');
    const kill = setTimeout(() => signalProcess(child, 'SIGKILL'), graceMs);
    await this.#closed;
    clearTimeout(kill);
    this.#state = 'exited';
  }

  async #askReadiness(port: number): Promise<void> {
    if (this.#stopping || this.#state === 'exited') return;
    let answered: number | undefined;
    try {
      const answer = await fetch(`http://127.0.0.1:${port}${this.#options.probePath}`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
      await answer.body?.cancel();
      answered = answer.status;
    } catch {
      // not listening yet, or gone: no answer
    }
    // The slot may have moved on while the probe was out: stopped, or restarted on another port.
    const now = this.#state as ReplicaState;
    if (this.#stopping || now === 'exited' || this.#url !== `http://127.0.0.1:${port}`) return;
    if (answered === 200) {
      this.#backoffMs = FIRST_BACKOFF_MS;
      this.#state = 'ready';
    } else if (answered !== undefined || now !== 'starting') this.#state = 'not_ready';
  }

  #onExit(code: number | null, signalName: NodeJS.Signals | null): void {
    clearInterval(this.#probe);
    const wasStopping = this.#stopping;
    this.#state = 'exited';
    if (wasStopping) return;
    const how = signalName === null ? `code ${code}` : `signal ${signalName}`;
    const wait = this.#backoffMs;
    this.#backoffMs = Math.min(this.#backoffMs * 2, MAX_BACKOFF_MS);
    this.#options.report(`replica ${this.#options.index} (pid ${this.#child?.pid}) exited with ${how}; restarting it in ${wait / 1000}s (restart ${this.#restarts + 1})`);
    this.#restartTimer = setTimeout(() => {
      if (this.#stopping) return;
      this.#restarts += 1;
      void this.start().then(
        () => this.#options.report(`replica ${this.#options.index} restarted (pid ${this.#child?.pid}, restart ${this.#restarts})`),
        (error: unknown) => this.#options.report(`replica ${this.#options.index} could not restart: ${error instanceof Error ? error.message : String(error)}`),
      );
    }, wait);
  }

  #keep(line: string): void {
    this.#lines.push(line);
    if (this.#lines.length > KEPT_LINES) this.#lines.splice(0, this.#lines.length - KEPT_LINES);
  }

  #follow(stream: NodeJS.ReadableStream | null): void {
    if (stream !== null) createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => this.#keep(line));
  }
}
