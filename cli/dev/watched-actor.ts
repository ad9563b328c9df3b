import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { WatchCommand } from './dev-runtime.js';

/** Where the watched actor is: `starting` (or restarting), `running` (its server listens), `failed` (waits for the next save), `stopped`. */
export type WatchedActorState = 'starting' | 'running' | 'failed' | 'stopped';

/** What a {@link WatchedActor} reports as it runs. */
export interface WatchedActorEvents {
  /** Each line the actor (or its watcher) writes, with the stream it came on. */
  readonly onLine: (line: string, stream: 'stdout' | 'stderr') => void;
  /** The state changed; `failure` is the condensed error output when it is `failed`. */
  readonly onState: (state: WatchedActorState, failure: string | undefined) => void;
}

/** How `WatchedActor.stop` ended: the exit code of the watcher and whether the actor logged `actor_stopped` (store closed). */
export interface WatchedActorExit {
  readonly code: number | null;
  readonly storeClosed: boolean;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;
/** The marker lines of Node's watch mode. */
const NODE_RESTARTING = /^Restarting '/;
const NODE_FAILED = /^Failed running '/;
const FAILURE_LIMIT = 2_000;
/** How long error output may keep coming before a failed start is announced with all of it. */
const FAILURE_SETTLE_MS = 300;

/** The event of a JSON log line, or undefined for any other line. */
function logEvent(line: string): string | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const event = (JSON.parse(line) as { event?: unknown }).event;
    return typeof event === 'string' ? event : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An error output reduced to what a person reads: no stack frames, no runtime banner, at most
 * 2,000 characters.
 */
function condensedFailure(lines: readonly string[]): string {
  const noise = /^(\s+at |(Node\.js|Bun) v\d|node:internal\/|\s*triggerUncaughtException\(|\s*\^\s*$)/;
  const kept = lines.filter((line) => !noise.test(line) && line.trim() !== '');
  const text = kept.join('\n').trim();
  return text.length > FAILURE_LIMIT ? `${text.slice(0, FAILURE_LIMIT)}…` : text;
}

/**
 * The actor under its runtime's watcher, in its own process group (so a Ctrl-C in the terminal
 * reaches only `actorkit dev`, which stops it once and cleanly). It follows the actor's state from
 * its output: the JSON log line `actor_listening` means running; Node's `Restarting '…'` means
 * restarting, as does the log line `actor_stopped`; Node's `Failed running '…'`, or text on stderr while the actor is not listening,
 * means failed with that text.
 */
export class WatchedActor {
  #child: ChildProcess;
  #state: WatchedActorState = 'starting';
  #errorLines: string[] = [];
  #storeClosed = false;
  #stopping = false;
  #failing: NodeJS.Timeout | undefined;
  readonly #exited: Promise<number | null>;
  readonly #events: WatchedActorEvents;

  /**
   * Starts the watcher.
   * @param watch the command line, see `watchCommand`
   * @param options the actor's folder, the environment it runs with, and the event handlers
   */
  constructor(watch: WatchCommand, options: { readonly cwd: string; readonly env: Record<string, string | undefined> } & WatchedActorEvents) {
    this.#events = options;
    this.#child = spawn(watch.command, [...watch.args], { cwd: options.cwd, env: options.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    this.#exited = new Promise((resolve) => {
      this.#child.once('error', (error) => {
        this.#errorLines.push(error.message);
        this.#set('failed');
        resolve(null);
      });
      this.#child.once('exit', (code) => {
        this.#set('stopped');
        resolve(code);
      });
    });
    this.#follow(this.#child.stdout, 'stdout');
    this.#follow(this.#child.stderr, 'stderr');
  }

  /** The actor's current state. */
  get state(): WatchedActorState {
    return this.#state;
  }

  /** Settles with the watcher's exit code when it exits, by itself or stopped. */
  get exited(): Promise<number | null> {
    return this.#exited;
  }

  /** The condensed error output since the actor last started listening ('' when there is none). */
  get failure(): string {
    return condensedFailure(this.#errorLines);
  }

  /**
   * Stops the actor gracefully: SIGINT to the watcher (Node's watch mode passes it on; under Bun
   * the watcher is the actor), SIGKILL to the group when it has not exited within `graceMs`.
   * @param graceMs how long to wait before killing
   */
  async stop(graceMs: number): Promise<WatchedActorExit> {
    this.#stopping = true;
    this.#storeClosed = false;
    if (this.#child.exitCode === null && this.#child.signalCode === null) {
      this.#signal('SIGINT', false);
      const timer = setTimeout(() => this.#signal('SIGKILL', true), graceMs);
      const code = await this.#exited;
      clearTimeout(timer);
      return { code, storeClosed: this.#storeClosed };
    }
    return { code: await this.#exited, storeClosed: this.#storeClosed };
  }

  /** Kills the whole group at once (used when `actorkit dev` itself is ending abruptly). */
  kill(): void {
    this.#signal('SIGKILL', true);
  }

  #signal(signal: NodeJS.Signals, group: boolean): void {
    const pid = this.#child.pid;
    if (pid === undefined || this.#child.exitCode !== null) return;
    try {
      process.kill(group ? -pid : pid, signal);
    } catch {
      // already gone
    }
  }

  #follow(stream: NodeJS.ReadableStream | null, name: 'stdout' | 'stderr'): void {
    if (stream === null) return;
    createInterface({ input: stream, crlfDelay: Infinity }).on('line', (raw) => {
      const line = raw.replace(ANSI, '');
      this.#events.onLine(raw, name);
      this.#observe(line, name);
    });
  }

  #observe(line: string, stream: 'stdout' | 'stderr'): void {
    const event = logEvent(line);
    if (event === 'actor_listening') {
      this.#errorLines = [];
      // Bun's watcher restarts in place, without waiting for the shutdown to finish: a second
      // `actor_listening` is a restart.
      if (this.#state === 'running') this.#set('starting');
      this.#set('running');
    } else if (event === 'actor_shutdown_started') {
      if (!this.#stopping) this.#set('starting');
    } else if (event === 'actor_stopped') {
      // A restart (or the end): under Bun the watcher restarts in place, without a marker line.
      this.#storeClosed = true;
      if (!this.#stopping) this.#set('starting');
    } else if (NODE_RESTARTING.test(line)) {
      this.#errorLines = [];
      this.#storeClosed = false;
      this.#set('starting');
    } else if (NODE_FAILED.test(line)) {
      this.#failSoon();
    } else if (stream === 'stderr' && event === undefined && line.trim() !== '') {
      this.#errorLines.push(line);
      this.#errorLines.splice(0, Math.max(0, this.#errorLines.length - 200));
      if (this.#state !== 'running') this.#failSoon();
    }
  }

  #failSoon(): void {
    clearTimeout(this.#failing);
    this.#failing = setTimeout(() => {
      if (this.#state !== 'running' && this.#state !== 'stopped' && !this.#stopping) this.#set('failed');
    }, FAILURE_SETTLE_MS);
  }

  #set(state: WatchedActorState): void {
    if (state === this.#state) return;
    this.#state = state;
    this.#events.onState(state, state === 'failed' ? this.failure : undefined);
  }
}
