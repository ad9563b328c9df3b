import { spawn, type ChildProcess } from 'node:child_process';
import { signalProcess } from '../cli/library.js';
import { createInterface } from 'node:readline';
import type { ReplicaState, ReplicaView } from './actor-pool.js';
import { PLATFORM_SECRET_HEADER } from './forward-request.js';
import { ANY_FREE_PORT, type PortSource } from './port-range.js';
import { PROBE_TIMEOUT_SECONDS, READINESS_FAILURE_THRESHOLD } from './probe-rules.js';

/** How many lines of a replica's output the platform keeps. */
const KEPT_LINES = 50;
/** How `actorkit platform` probes its replicas' readiness (see `ReplicaSlotOptions.probe`). */
export interface ReadinessProbeTiming {
  /** The wait between one probe's end and the next probe. */
  readonly everyMs: number;
  /** How long one probe may take before it counts as failed. */
  readonly timeoutMs: number;
  /** How many probes in a row must fail before a ready replica is taken out of rotation. */
  readonly failureThreshold: number;
}

/**
 * The probe of every replica: the time-out and failure threshold of the Kubernetes manifests
 * (`probe-rules.ts`), asked every half second rather than every 5 s so a local start is quick.
 */
const READINESS_PROBE: ReadinessProbeTiming = {
  everyMs: 500,
  timeoutMs: PROBE_TIMEOUT_SECONDS * 1_000,
  failureThreshold: READINESS_FAILURE_THRESHOLD,
};
/** The first wait before a dead replica is started again; doubled after each death without reaching ready, up to the cap. */
const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 10_000;

/**
 * How a slot starts and ends one replica: a Node process of a built folder ({@link processRunner})
 * or a container of a published image (`containerRunner`). The slot does the rest the same way for
 * both: ports, readiness, output, drain, restarts.
 */
export interface ReplicaRunner {
  /**
   * Starts one replica listening on `port` of 127.0.0.1: a child process in a group of its own,
   * the replica's output on its standard output and error, exiting when the replica ends, and
   * passing SIGTERM on to it (the replica drains).
   */
  start(port: number): ChildProcess;
  /** Ends a replica at once (it did not drain within the grace); `child` is what `start` returned. */
  kill(child: ChildProcess): void;
}

/** What {@link processRunner} runs: the program, its folder and its environment. */
export interface ProcessRunnerOptions {
  /** The actor folder: the working directory of the process. */
  readonly cwd: string;
  /** The program and arguments of the process (`node … dist/main.node.js`). */
  readonly command: readonly [string, ...string[]];
  /** The environment of every process, without `PORT` (the slot picks one per start). */
  readonly env: Readonly<Record<string, string>>;
}

/**
 * Runs each replica as a process of the platform's machine, with `PORT` set; its standard input
 * is a pipe it may watch to end with the platform (see `exit-with-parent.ts`); SIGKILL goes to its group.
 * @param options the program, its folder and its environment
 */
export function processRunner(options: ProcessRunnerOptions): ReplicaRunner {
  return {
    start(port) {
      const [program, ...args] = options.command;
      return spawn(program, args, {
        cwd: options.cwd,
        env: { ...options.env, PORT: String(port) },
        detached: true,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
    },
    kill: (child) => signalProcess(child, 'SIGKILL'),
  };
}

/** What a replica slot needs: how to start its replica, where to probe it, and whom to tell. */
export interface ReplicaSlotOptions {
  readonly index: number;
  /** Starts and kills the replica: a process or a container. */
  readonly runner: ReplicaRunner;
  /** The readiness path (`deployment.readiness_path`, else the health path). */
  readonly probePath: string;
  /** Told what happens: a restart, a death. */
  readonly report: (message: string) => void;
  /** How readiness is probed; the manifests' rules by default. */
  readonly probe?: ReadinessProbeTiming;
  /** Where the slot takes the `PORT` of each process it starts; any free port by default (`--replica-ports` sets a range). */
  readonly ports?: PortSource;
  /** The run's secret, sent with every probe in `X-Platform-Secret` (the replica refuses requests without it). */
  readonly platformSecret?: string;
}

/**
 * One replica of an actor, as a Kubernetes pod slot: it starts the replica (its runner's
 * process or container) with a free `PORT`
 * (of `ports`, given back when the process ends),
 * polls its readiness probe (`ready` on 200; `starting` until the first answer; a ready replica
 * turns `not_ready` only after `failureThreshold` failed probes in a row — a non-200 answer or
 * none within the time-out — as in the manifests, so one slow answer under load does not take
 * it out of rotation), keeps its last output lines, and starts it again after it dies, waiting
 * 0.5 s, then twice as long after each death that came before it was ready (at most 10 s). A
 * process that exits leaves the rotation at once.
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
  /** Failed probes in a row since the last 200. */
  #failedProbes = 0;
  readonly #timing: ReadinessProbeTiming;
  #restartTimer: NodeJS.Timeout | undefined;

  constructor(options: ReplicaSlotOptions) {
    this.#options = options;
    this.#timing = options.probe ?? READINESS_PROBE;
  }

  /** The slot as the dashboard and the round-robin see it. */
  view(): ReplicaView {
    return {
      index: this.#options.index,
      url: this.#url,
      state: this.#state,
      pid: this.#child?.pid,
      restarts: this.#restarts,
      startedAt: this.#startedAt,
      lastLines: [...this.#lines],
    };
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
    const ports = this.#options.ports ?? ANY_FREE_PORT;
    const port = await ports.take();
    if (this.#stopping) {
      ports.release(port);
      return;
    }
    this.#url = `http://127.0.0.1:${port}`;
    this.#startedAt = new Date().toISOString();
    this.#state = 'starting';
    const child = this.#options.runner.start(port);
    child.stdin?.on('error', () => undefined);
    this.#child = child;
    this.#follow(child.stdout);
    this.#follow(child.stderr);
    this.#closed = new Promise((resolve) => {
      child.once('error', (error) => {
        ports.release(port);
        this.#keep(`could not start: ${error.message}`);
        resolve();
      });
      child.once('close', (code, signal) => {
        ports.release(port);
        this.#onExit(code, signal);
        resolve();
      });
    });
    this.#failedProbes = 0;
    this.#scheduleProbe(port);
  }

  /**
   * Stops the slot for good: `draining` (no new requests), SIGTERM (the actor's graceful
   * shutdown), then the runner's kill when it has not exited within `graceMs`.
   * @param graceMs how long the replica may take to drain
   */
  async stop(graceMs: number): Promise<void> {
    this.#stopping = true;
    clearTimeout(this.#restartTimer);
    clearTimeout(this.#probe);
    const child = this.#child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) {
      this.#state = 'exited';
      return;
    }
    this.#state = 'draining';
    signalProcess(child, 'SIGTERM');
    const kill = setTimeout(() => this.#options.runner.kill(child), graceMs);
    await this.#closed;
    clearTimeout(kill);
    this.#state = 'exited';
  }

  /** Asks the probe `everyMs` after the last one ended, one at a time, while this process of the slot runs. */
  #scheduleProbe(port: number): void {
    this.#probe = setTimeout(() => {
      void this.#askReadiness(port).then(() => {
        if (this.#stillRuns(port)) this.#scheduleProbe(port);
      });
    }, this.#timing.everyMs);
  }

  /** Whether the slot still runs the process on `port`: not stopped, not exited, not restarted on another port. */
  #stillRuns(port: number): boolean {
    return !this.#stopping && this.#state !== 'exited' && this.#url === `http://127.0.0.1:${port}`;
  }

  async #askReadiness(port: number): Promise<void> {
    if (!this.#stillRuns(port)) return;
    let answered: number | undefined;
    try {
      const secret = this.#options.platformSecret;
      const answer = await fetch(`http://127.0.0.1:${port}${this.#options.probePath}`, {
        headers: secret === undefined ? {} : { [PLATFORM_SECRET_HEADER]: secret },
        signal: AbortSignal.timeout(this.#timing.timeoutMs),
      });
      await answer.body?.cancel();
      answered = answer.status;
    } catch {
      // not listening yet, or gone, or too slow: no answer
    }
    // The slot may have moved on while the probe was out: stopped, or restarted on another port.
    if (!this.#stillRuns(port)) return;
    const now = this.#state as ReplicaState;
    if (answered === 200) {
      this.#backoffMs = FIRST_BACKOFF_MS;
      this.#failedProbes = 0;
      this.#state = 'ready';
      return;
    }
    this.#failedProbes += 1;
    if (
      now === 'ready'
        ? this.#failedProbes >= this.#timing.failureThreshold
        : answered !== undefined || now !== 'starting'
    )
      this.#state = 'not_ready';
  }

  #onExit(code: number | null, signalName: NodeJS.Signals | null): void {
    clearTimeout(this.#probe);
    const wasStopping = this.#stopping;
    this.#state = 'exited';
    if (wasStopping) return;
    const how = signalName === null ? `code ${code}` : `signal ${signalName}`;
    const wait = this.#backoffMs;
    this.#backoffMs = Math.min(this.#backoffMs * 2, MAX_BACKOFF_MS);
    this.#options.report(
      `replica ${this.#options.index} (pid ${this.#child?.pid}) exited with ${how}; restarting it in ${wait / 1000}s (restart ${this.#restarts + 1})`,
    );
    this.#restartTimer = setTimeout(() => {
      if (this.#stopping) return;
      this.#restarts += 1;
      void this.start().then(
        () =>
          this.#options.report(
            `replica ${this.#options.index} restarted (pid ${this.#child?.pid}, restart ${this.#restarts})`,
          ),
        (error: unknown) =>
          this.#options.report(
            `replica ${this.#options.index} could not restart: ${error instanceof Error ? error.message : String(error)}`,
          ),
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
