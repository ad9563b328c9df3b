import { existsSync } from 'node:fs';
import { freeLocalPort } from '../child-process.js';
import { join, resolve } from 'node:path';
import { CliError, toCliFailure, type CliFailure } from '../cli-error.js';
import { resolveCliIo, type CliIo } from '../cli-io.js';
import { checkActorConfig, recheckConfigOnChange, type ConfigCheck } from './config-recheck.js';
import { devEnvironment, shownEnvironment } from './dev-environment.js';
import { startDevProxy } from './dev-proxy.js';
import { watchCommand, type DevRuntime } from './dev-runtime.js';
import { WatchedActor, type WatchedActorState } from './watched-actor.js';
import { isLoopbackHostname, PLAYGROUND_EVAL_CASES_PATH } from '../../src/http/index.js';
import { PLAYGROUND_CASE_BODY_LIMIT, playgroundCaseHandler } from '../eval/playground-case.js';
import { PLATFORM_RULE_RANGE } from '../../src/sdk/index.js';
import { parseEnvironment, readRuntimeConfig } from '../../src/index.js';
import { networkInterfaces } from 'node:os';

/** The inputs of {@link runDev}. */
export interface RunDevOptions {
  /** The port to answer on; default `PORT`, else 8080. `0` picks a free one. */
  readonly port?: number;
  /** The address to listen on; default `127.0.0.1`. */
  readonly host?: string;
  /** `node` (default) or `bun`. */
  readonly runtime?: DevRuntime | string;
  /** Print JSON lines of the dev events on standard output (the actor's own output goes to standard error). */
  readonly json?: boolean;
  /** Stops the run like Ctrl-C (tests); without it, SIGINT and SIGTERM stop it. */
  readonly signal?: AbortSignal;
  readonly io?: Partial<CliIo>;
}

/** The URLs `actorkit dev` prints. */
export interface DevUrls {
  readonly api: string;
  readonly playground: string;
  readonly docs: string;
  /** Every base URL it answers on: one per interface address when it listens on `0.0.0.0` or `::`. */
  readonly served: readonly string[];
}

/** How `actorkit dev` ended. */
export interface RunDevResult {
  /** `ok` when it was stopped and the running actor closed its store; `failed` when Bun's watcher ended by itself or a running actor did not report its store closed. */
  readonly status: 'ok' | 'failed';
  readonly actorDir: string;
  readonly runtime: DevRuntime;
  readonly urls: DevUrls;
  /** Whether the actor logged `actor_stopped` (its store closed) on the way out. */
  readonly storeClosed: boolean;
  /** The exit code of the actor's process (Bun: its watcher). */
  readonly exitCode: number | null;
}

const STOP_GRACE_MS = 15_000;

function defaultPort(env: Readonly<Record<string, string | undefined>>): number {
  const raw = env.PORT?.trim();
  return raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : 8080;
}

const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * Resolves when SIGINT or SIGTERM arrives (or `signal` aborts), or when `ended` settles first.
 * From the first signal on, later ones are caught too, until `release()`: a second Ctrl-C, or a
 * signal to the whole process group after the first, must not end `actorkit dev` before its
 * actor has stopped.
 */
function untilStopped(
  signal: AbortSignal | undefined,
  ended: Promise<unknown>,
): { readonly how: Promise<'stopped' | 'ended'>; release(): void } {
  let settle: (how: 'stopped' | 'ended') => void = () => undefined;
  const how = new Promise<'stopped' | 'ended'>((resolveStop) => (settle = resolveStop));
  const stop = () => settle('stopped');
  if (signal === undefined) for (const name of STOP_SIGNALS) process.on(name, stop);
  else if (signal.aborted) stop();
  else signal.addEventListener('abort', stop, { once: true });
  void ended.then(() => settle('ended'));
  return {
    how,
    release: () => {
      for (const name of STOP_SIGNALS) process.off(name, stop);
    },
  };
}

/** Keeps a write to a closed output (the reader of a pipe went away with the process group) from ending `actorkit dev` before its actor has stopped. */
function ignoreClosedOutput(stream: NodeJS.WritableStream): void {
  stream.on('error', () => undefined);
}

/** The API keys the actor accepts with `env` (`API_KEY_ENABLED`, `API_KEY`, not `ACTOR_PLATFORM`); none when they are off or incomplete. */
function actorApiKeys(env: Readonly<Record<string, string | undefined>>): readonly string[] {
  const { ACTOR_PLATFORM, API_KEY_ENABLED, API_KEY } = env;
  try {
    return readRuntimeConfig(parseEnvironment({ ACTOR_PLATFORM, API_KEY_ENABLED, API_KEY }), () => {}).apiKeys;
  } catch {
    // A bad or incomplete key setting is no key: the actor refuses to start and says what to set.
    return [];
  }
}

/**
 * What `actorkit dev` says when `host` serves beyond this machine (undefined on loopback). Such a
 * host needs the actor's API key on (`API_KEY_ENABLED=true`, `API_KEY`, not `ACTOR_PLATFORM`):
 * without it, anyone who reaches the port could call the actor, change its settings and spend
 * its model key, so it is refused.
 */
function exposureOf(host: string, env: Readonly<Record<string, string | undefined>>): string | undefined {
  if (isLoopbackHostname(host.toLowerCase())) return undefined;
  if (actorApiKeys(env).length === 0) {
    throw new CliError(
      'refused',
      'api_key_required',
      `--host ${host} serves the actor to other machines: set API_KEY_ENABLED=true and API_KEY=<a long random key> (every call then needs X-API-Key), or leave --host at 127.0.0.1`,
    );
  }
  return `--host ${host} is reachable from other machines; every call needs X-API-Key`;
}

/**
 * `actorkit dev`: runs the actor in `actorDir` from its TypeScript source, restarted on every
 * change under `src/` (see `WatchedActor`; the SQLite file kept), behind a small proxy on
 * `port` that holds requests while it restarts and shows a failed start (see `startDevProxy`);
 * the playground is on, with its "Save as eval case" served by this process (see
 * `playgroundCaseHandler`: it writes `evals/<name>.yaml`). Prints the URLs and the environment (secrets masked), checks the
 * platform configuration at start and on every change of `src/actor.ts` (problems printed, the
 * actor keeps running). Runs until SIGINT or SIGTERM, then stops the actor gracefully (store
 * closed). Never throws: a folder that is not an actor or a bad runtime is `refused`, a port in
 * use `failed`.
 * @param actorDir the actor's folder, relative to `io.cwd`
 * @param options port, host, runtime, JSON output
 * @example
 * const result = await runDev('.', { port: 3000 });
 */
export async function runDev(actorDir: string, options: RunDevOptions = {}): Promise<RunDevResult | CliFailure> {
  const io = resolveCliIo(options.io);
  const root = resolve(io.cwd, actorDir);
  try {
    if (!existsSync(join(root, 'package.json')))
      throw new CliError('refused', 'not_an_actor', `${root} is not an actor folder (no package.json)`);
    const runtime = (options.runtime ?? 'node') as DevRuntime;
    const watch = watchCommand(runtime, root, io.env);
    const host = options.host ?? '127.0.0.1';
    const exposure = exposureOf(host, io.env);
    const actorPort = await freeLocalPort();
    let actor: WatchedActor | undefined;
    const proxy = await startDevProxy(
      {
        port: actorPort,
        get state(): WatchedActorState {
          return actor?.state ?? 'starting';
        },
        get failure() {
          return actor?.failure ?? '';
        },
      },
      { port: options.port ?? defaultPort(io.env), host },
      {
        path: PLAYGROUND_EVAL_CASES_PATH,
        bodyLimit: PLAYGROUND_CASE_BODY_LIMIT,
        handle: playgroundCaseHandler({ actorDir: root, apiKeys: actorApiKeys(io.env) }),
      },
    );
    const served = servedBaseUrls(host, proxy.port);
    const base = (served[0] ?? `http://127.0.0.1:${proxy.port}/`).slice(0, -1);
    const urls: DevUrls = { api: `${base}/`, playground: `${base}/playground`, docs: `${base}/docs`, served };
    const env = devEnvironment(io.env, actorPort);
    ignoreClosedOutput(io.stdout);
    ignoreClosedOutput(io.stderr);
    const say = (text: string, event: Record<string, unknown>) =>
      io.stdout.write(options.json ? `${JSON.stringify(event)}\n` : `${text}\n`);

    const shown = shownEnvironment(env, proxy.port);
    say(
      [
        `actorkit dev: ${root} on ${runtime}, restarting on every change under src/`,
        `  API         ${urls.api}`,
        `  playground  ${urls.playground}`,
        `  docs        ${urls.docs}`,
        ...(served.length > 1 ? [`  served on   ${served.join(', ')}`] : []),
        ...(exposure === undefined ? [] : [`  warning: ${exposure}`]),
        '  environment:',
        ...Object.entries(shown).map(([name, value]) => `    ${name}=${value}`),
        '  Ctrl-C stops it.',
      ].join('\n'),
      {
        event: 'dev_started',
        actor_dir: root,
        runtime,
        port: proxy.port,
        urls,
        environment: shown,
        ...(exposure === undefined ? {} : { warning: exposure }),
      },
    );

    let everRan = false;
    actor = new WatchedActor(watch, {
      cwd: root,
      env,
      onLine: (line, stream) => (options.json || stream === 'stderr' ? io.stderr : io.stdout).write(`${line}\n`),
      onState: (state, failure) => {
        if (state === 'running') {
          say(
            everRan
              ? `actorkit dev: actor restarted — ${urls.playground}`
              : `actorkit dev: actor listening — open ${urls.playground}`,
            { event: 'actor_state', state },
          );
          everRan = true;
        } else if (state === 'failed') {
          say(
            `actorkit dev: actor failed to start:\n${failure ?? ''}\nactorkit dev: fix it and save; it restarts on the next change under src/`,
            { event: 'actor_state', state, failure },
          );
        } else if (state === 'starting' && everRan)
          say('actorkit dev: change under src/, restarting the actor', { event: 'actor_state', state });
      },
    });

    const reportCheck = (check: ConfigCheck) =>
      say(
        check.status === 'ok'
          ? `actorkit dev: configuration check OK (src/platform/config.json matches src/actor.ts; rules ${PLATFORM_RULE_RANGE} pass)`
          : [
              `actorkit dev: configuration check found ${check.problems.length} problem(s) (the actor keeps running):`,
              ...check.problems,
            ].join('\n'),
        { event: 'config_check', status: check.status, problems: check.problems },
      );
    void checkActorConfig(root, io).then(reportCheck, () => undefined);
    const configWatcher = recheckConfigOnChange(root, io, reportCheck);

    const stopped = untilStopped(options.signal, actor.exited);
    const how = await stopped.how;
    configWatcher.close();
    if (how === 'stopped') say('actorkit dev: stopping the actor…', { event: 'dev_stopping' });
    const wasRunning = actor.state === 'running';
    const exit = await actor.stop(STOP_GRACE_MS).finally(() => stopped.release());
    await proxy.close();
    // An actor that was not running (still starting, or failed to start) has no store to close.
    const clean = how === 'stopped' && (exit.storeClosed || !wasRunning);
    say(
      how === 'ended'
        ? `actorkit dev: Bun's watcher exited by itself (code ${exit.code})`
        : `actorkit dev: stopped${exit.storeClosed ? ', store closed' : ' (the actor did not report its store closed)'}`,
      { event: 'dev_stopped', exit_code: exit.code, store_closed: exit.storeClosed },
    );
    return {
      status: clean ? 'ok' : 'failed',
      actorDir: root,
      runtime,
      urls,
      storeClosed: exit.storeClosed,
      exitCode: exit.code,
    };
  } catch (error) {
    return toCliFailure(error);
  }
}

/** Addresses that mean every interface: IPv4's, IPv6's (which on most systems takes IPv4 too). */
const WILDCARDS: Readonly<Record<string, readonly ('IPv4' | 'IPv6')[]>> = {
  '0.0.0.0': ['IPv4'],
  '::': ['IPv4', 'IPv6'],
  '[::]': ['IPv4', 'IPv6'],
};

/** `http://<address>:<port>/`, with an IPv6 address in brackets. */
function baseUrl(address: string, port: number): string {
  return `http://${address.includes(':') && !address.startsWith('[') ? `[${address}]` : address}:${port}/`;
}

/**
 * The base URLs a server listening on `host:port` answers: one per address of this machine's
 * interfaces when `host` is a wildcard (`0.0.0.0`, `::`), else `host`'s own. Loopback first.
 * @param host the listening address, e.g. `127.0.0.1`, `0.0.0.0`, `192.168.1.5`
 * @param port the port bound
 * @example
 * servedBaseUrls('0.0.0.0', 3000); // ['http://127.0.0.1:3000/', 'http://192.168.1.5:3000/']
 */
function servedBaseUrls(host: string, port: number): string[] {
  const families = WILDCARDS[host];
  if (families === undefined) return [baseUrl(host, port)];
  const entries = Object.values(networkInterfaces())
    .flat()
    .filter((entry) => entry !== undefined && families.includes(entry.family));
  const ordered = [...entries.filter((entry) => entry!.internal), ...entries.filter((entry) => !entry!.internal)];
  return ordered.map((entry) => baseUrl(entry!.address, port));
}
