import { spawn, type ChildProcess } from 'node:child_process';
import { signalProcess } from '../child-process.js';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import type { LogEvent } from '../../src/index.js';
import type { WatchCommand } from './dev-runtime.js';
import { type TreeWatch, watchTree } from './watch-tree.js';

/** Where the watched actor is: `starting` (or restarting), `running` (its server listens), `failed` (waits for the next save), `stopped`. */
export type WatchedActorState = 'starting' | 'running' | 'failed' | 'stopped';

/** What a {@link WatchedActor} reports as it runs. */
export interface WatchedActorEvents {
  /** Each line the actor (or its watcher) writes, with the stream it came on. */
  readonly onLine: (line: string, stream: 'stdout' | 'stderr') => void;
  /** The state changed; `failure` is the condensed error output when it is `failed`. */
  readonly onState: (state: WatchedActorState, failure: string | undefined) => void;
}

/** How `WatchedActor.stop` ended: the exit code of the process and whether the actor logged `actor_stopped` (store closed). */
export interface WatchedActorExit {
  readonly code: number | null;
  readonly storeClosed: boolean;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;
const FAILURE_LIMIT = 2_000;
/** How long error output may keep coming before a failed start is announced with all of it (Bun, whose watcher keeps running). */
const FAILURE_SETTLE_MS = 300;
/** The events one save makes (write, rename, editor swap files) within this window are one change. */
const CHANGE_SETTLE_MS = 100;
/** How long a restart waits for the old process to finish its graceful shutdown before killing it. */
const RESTART_GRACE_MS = 5_000;

/**
 * The actor's log events `actorkit dev` follows, by their names in `LOG_EVENTS`, and what each
 * tells it (docs/logs.md shows them). A rename in the table fails the compile here.
 */
export const DEV_FOLLOWED_EVENTS = {
  actor_listening: 'the actor runs (a second one without a shutdown between, under Bun, is a restart)',
  actor_shutdown_started: 'the actor restarts, unless `actorkit dev` is stopping it',
  actor_stopped: 'the actor closed its store: `actorkit dev` reports a clean stop',
} as const satisfies { readonly [Event in LogEvent]?: string };

type DevFollowedEvent = keyof typeof DEV_FOLLOWED_EVENTS;

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
 * The actor process under `actorkit dev`, in its own process group (so a Ctrl-C in the terminal
 * reaches only `actorkit dev`, which stops it once and cleanly), watching a pipe from
 * `actorkit dev` that ends it when `actorkit dev` is gone, even killed (see `exit-with-parent.ts`). Under Node, `actorkit dev`
 * watches `src/` itself and restarts the process once per save, one restart at a time; under
 * Bun, Bun's watcher restarts it in place. The state follows the actor's output: the JSON log
 * line `actor_listening` means running, `actor_shutdown_started` restarting; a process that
 * exits by itself, or text on stderr while the actor is not listening, means failed with that
 * text, until the next save.
 */
export class WatchedActor {
  readonly #watch: WatchCommand;
  readonly #cwd: string;
  readonly #env: Record<string, string | undefined>;
  readonly #events: WatchedActorEvents;
  #child!: ChildProcess;
  #childClosed!: Promise<number | null>;
  #state: WatchedActorState = 'starting';
  #errorLines: string[] = [];
  #storeClosed = false;
  #stopping = false;
  #restarting: Promise<void> | undefined;
  #restartAgain = false;
  #failing: NodeJS.Timeout | undefined;
  #changeTimer: NodeJS.Timeout | undefined;
  #sourceWatcher: TreeWatch | undefined;
  /** A process with actorkit loaded, waiting to become the next actor (Node). */
  #spare: ChildProcess | undefined;
  readonly #ended: Promise<number | null>;
  #end!: (code: number | null) => void;

  /**
   * Starts the actor.
   * @param command the command line, see `watchCommand`
   * @param options the actor's folder, the environment it runs with, and the event handlers
   */
  constructor(
    command: WatchCommand,
    options: { readonly cwd: string; readonly env: Record<string, string | undefined> } & WatchedActorEvents,
  ) {
    this.#watch = command;
    this.#cwd = options.cwd;
    this.#env = options.env;
    this.#events = options;
    this.#ended = new Promise((resolve) => (this.#end = resolve));
    if (command.restartedBy === 'dev') {
      this.#sourceWatcher = watchTree(join(options.cwd, 'src'), () => {
        clearTimeout(this.#changeTimer);
        this.#changeTimer = setTimeout(() => void this.restart(), CHANGE_SETTLE_MS);
      });
    }
    this.#spawn();
  }

  /** The actor's current state. */
  get state(): WatchedActorState {
    return this.#state;
  }

  /** Settles with the exit code when `actorkit dev` is over for this actor: stopped, or (Bun) its watcher exited by itself. */
  get exited(): Promise<number | null> {
    return this.#ended;
  }

  /** The condensed error output since the actor last started listening ('' when there is none). */
  get failure(): string {
    return condensedFailure(this.#errorLines);
  }

  /**
   * Restarts the process (Node): one restart at a time; a change during a restart restarts once
   * more after it. The old process gets SIGTERM, so it shuts down gracefully and closes its store.
   */
  restart(): Promise<void> {
    if (this.#stopping) return Promise.resolve();
    if (this.#restarting !== undefined) {
      this.#restartAgain = true;
      return this.#restarting;
    }
    this.#restarting = (async () => {
      do {
        this.#restartAgain = false;
        this.#errorLines = [];
        this.#set('starting');
        await this.#stopChild('SIGTERM', RESTART_GRACE_MS);
        if (this.#stopping) return;
        this.#spawn();
      } while (this.#restartAgain);
    })().finally(() => (this.#restarting = undefined));
    return this.#restarting;
  }

  /**
   * Stops the actor gracefully: SIGINT (under Bun the watcher is the actor), then SIGKILL to its group when it has not exited within `graceMs`.
   * @param graceMs how long to wait before killing
   */
  async stop(graceMs: number): Promise<WatchedActorExit> {
    this.#stopping = true;
    this.#storeClosed = false;
    this.#sourceWatcher?.close();
    clearTimeout(this.#changeTimer);
    this.#dropSpare();
    await this.#restarting;
    const code = await this.#stopChild('SIGINT', graceMs);
    this.#set('stopped');
    this.#end(code);
    return { code, storeClosed: this.#storeClosed };
  }

  async #stopChild(signal: NodeJS.Signals, graceMs: number): Promise<number | null> {
    const child = this.#child;
    signalProcess(child, signal);
    const timer = setTimeout(() => signalProcess(child, 'SIGKILL'), graceMs);
    const code = await this.#childClosed;
    clearTimeout(timer);
    return code;
  }

  #spawn(): void {
    // Its standard input is a pipe it watches: the process ends when `actorkit dev` is gone (see `exit-with-parent.ts`).
    const child =
      this.#takeSpare() ??
      spawn(this.#watch.command, [...this.#watch.args], {
        cwd: this.#cwd,
        env: this.#env,
        detached: true,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
    child.stdin?.on('error', () => undefined);
    this.#child = child;
    this.#childClosed = new Promise((resolve) => {
      child.once('error', (error) => {
        this.#errorLines.push(error.message);
        resolve(null);
      });
      // 'close' comes after the last output line, so a failure is announced with all of it.
      child.once('close', (code) => resolve(code));
    });
    void this.#childClosed.then((code) => {
      if (this.#stopping || this.#child !== child || this.#restarting !== undefined) return;
      if (this.#watch.restartedBy === 'runtime') {
        this.#set('stopped');
        this.#end(code);
        return;
      }
      if (this.#errorLines.length === 0)
        this.#errorLines.push(`the actor exited with code ${code} before a change asked for it`);
      this.#set('failed');
    });
    this.#follow(child.stdout, 'stdout');
    this.#follow(child.stderr, 'stderr');
  }

  /** Starts a warm spare (Node), once the actor runs, so it does not slow the start it follows. */
  #prepareSpare(): void {
    if (this.#watch.spareArgs === undefined || this.#spare !== undefined || this.#stopping) return;
    const spare = spawn(this.#watch.command, [...this.#watch.spareArgs], {
      cwd: this.#cwd,
      env: this.#env,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    spare.once('error', () => undefined);
    spare.stdin?.on('error', () => undefined);
    this.#spare = spare;
  }

  /** The warm spare, told to start the actor; undefined when there is none or it has died (then a fresh process starts). */
  #takeSpare(): ChildProcess | undefined {
    const spare = this.#spare;
    this.#spare = undefined;
    if (spare === undefined) return undefined;
    if (spare.exitCode !== null || spare.signalCode !== null || spare.stdin === null || spare.stdin.destroyed) {
      signalProcess(spare, 'SIGKILL');
      return undefined;
    }
    spare.stdin.write('start\n');
    return spare;
  }

  #dropSpare(): void {
    if (this.#spare !== undefined) signalProcess(this.#spare, 'SIGKILL');
    this.#spare = undefined;
  }

  #follow(stream: NodeJS.ReadableStream | null, name: 'stdout' | 'stderr'): void {
    if (stream === null) return;
    createInterface({ input: stream, crlfDelay: Infinity }).on('line', (raw) => {
      this.#events.onLine(raw, name);
      this.#observe(raw.replace(ANSI, ''), name);
    });
  }

  #observe(line: string, stream: 'stdout' | 'stderr'): void {
    const event = logEvent(line);
    const followed =
      event !== undefined && Object.hasOwn(DEV_FOLLOWED_EVENTS, event) ? (event as DevFollowedEvent) : undefined;
    if (followed === 'actor_listening') {
      this.#errorLines = [];
      // Bun's watcher restarts in place, without waiting for the shutdown to finish: a second
      // `actor_listening` is a restart.
      if (this.#state === 'running') this.#set('starting');
      this.#set('running');
      this.#prepareSpare();
    } else if (followed === 'actor_shutdown_started') {
      if (!this.#stopping) this.#set('starting');
    } else if (followed === 'actor_stopped') {
      this.#storeClosed = true;
    } else if (stream === 'stderr' && event === undefined && line.trim() !== '') {
      this.#errorLines.push(line);
      this.#errorLines.splice(0, Math.max(0, this.#errorLines.length - 200));
      // Under Node the process exit announces the failure; Bun's watcher stays alive.
      if (this.#state !== 'running' && this.#watch.restartedBy === 'runtime') this.#failSoon();
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
