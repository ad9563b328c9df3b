import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { DomainHealth } from '../../context/domain-health-monitor.js';
import { createLogger, type Logger } from '../../log/logger.js';
import { safeCall, type SafeCallOptions } from './safe-call.js';

export type { DomainHealth };

/** Options of a `DomainClient`, beside the settings. */
export interface DomainClientOptions {
  /** Where the client logs (default: JSON lines on the console). */
  readonly logger?: Logger;
  /** Environment used to find `requiredBinaries` on `PATH` (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Where a domain client reads the actor's settings: a function returning the current values,
 * read again on every access (pass `() => app.actor.context.settings.values`, so a value changed
 * by `PUT /settings` reaches the very next call), or a fixed settings object.
 */
export type DomainSettingsSource<TSettings> = TSettings | (() => TSettings);

/**
 * The base of an actor's domain client (the code that talks to its domain's services). It is
 * constructed from the actor's settings only — a live view of them when given a function — and logs `<prefix>_client_initialized`, the prefix
 * being the snake_case class name without its `Client` suffix (`WeatherClient` →
 * `weather_client_initialized`; set `static eventPrefix` when a bundler renames classes).
 * Override `healthCheck()` and hand it to `createActorApp({ healthChecks })`: `/health` reports it;
 * list system binaries in `requiredBinaries` and `/ready` reports them.
 * @example
 * class WeatherClient extends DomainClient<Settings> {
 *   static override readonly requiredBinaries = ['curl'];
 *   forecast(city: string) {
 *     return this.safeCall(() => fetch(`${this.settings.weather_url}?q=${city}`), { fallback: null, action: 'fetch_forecast' });
 *   }
 * }
 */
export abstract class DomainClient<TSettings = unknown> {
  /** System binaries the client needs; each becomes a `binary_<name>` readiness check. */
  static readonly requiredBinaries: readonly string[] = [];
  /** Overrides the event prefix derived from the class name. */
  static readonly eventPrefix?: string;

  /** Takes any event name: a client logs its own events (the runtime's `Logger` takes only those of `LOG_EVENTS`). */
  protected readonly logger: Logger<string>;
  readonly #settings: () => TSettings;
  readonly #env: Readonly<Record<string, string | undefined>> | undefined;

  constructor(settings: DomainSettingsSource<TSettings>, options: DomainClientOptions = {}) {
    this.#settings = typeof settings === 'function' ? (settings as () => TSettings) : () => settings;
    this.logger = options.logger ?? createLogger<string>();
    this.#env = options.env;
    this.logger.info(`${this.eventPrefix}_client_initialized`, { client: this.constructor.name });
  }

  /** The actor's settings as they are now: read through the source on every access, so never stale. */
  protected get settings(): TSettings {
    return this.#settings();
  }

  /** The snake_case prefix of this client's log events, e.g. `weather`. */
  get eventPrefix(): string {
    const clientClass = this.constructor as typeof DomainClient;
    return clientClass.eventPrefix ?? clientEventPrefix(clientClass.name);
  }

  /**
   * Reports whether the domain's service answers; override it. `createActorApp({ healthChecks })`
   * runs it in the background for `/health`, bounded by `HEALTH_CHECK_TIMEOUT_MS`; throwing counts
   * as `fail`. Not overridden, it says `warn` ("not implemented"): a check that checks nothing never says `pass`.
   */
  async healthCheck(): Promise<DomainHealth> {
    return {
      status: 'warn',
      output: `${this.constructor.name}.healthCheck() is not implemented: override it to check the service`,
    };
  }

  /** `{binary_<name>: found}` for each of `requiredBinaries`; `{}` when there are none. Feeds `/ready`. */
  readinessChecks(): Record<string, boolean> {
    const binaries = (this.constructor as typeof DomainClient).requiredBinaries;
    return Object.fromEntries(binaries.map((name) => [`binary_${name}`, isBinaryOnPath(name, this.#env)]));
  }

  /** `safeCall` with this client's logger and its class name in the warning; the result is the call's type or the fallback's. */
  protected safeCall<T, TFallback = T>(
    call: (signal: AbortSignal) => T | PromiseLike<T>,
    options: Omit<SafeCallOptions<TFallback>, 'logger'>,
  ): Promise<T | TFallback> {
    return safeCall(call, { ...options, logger: this.logger.child({ client: this.constructor.name }) });
  }
}

/**
 * The event prefix for a client class name: snake_case, `Client` suffix removed
 * (`WeatherClient` → `weather`, `GitHubAPIClient` → `git_hub_api`).
 * @param className the class name
 */
export function clientEventPrefix(className: string): string {
  const base = className.replace(/Client$/, '') || className;
  const snake = base
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();
  return snake === '' ? 'domain' : snake;
}

/**
 * Whether an executable named `name` is on `PATH`. Uses only `node:fs` and `node:path`, which
 * Node, Bun and Deno all provide; on Windows it also tries each `PATHEXT` extension.
 * @param name the binary, e.g. `ffmpeg`
 * @param env the environment to read `PATH` (and `PATHEXT`) from
 */
export function isBinaryOnPath(name: string, env: Readonly<Record<string, string | undefined>> = process.env): boolean {
  if (name === '' || name.includes('/') || name.includes('\\')) return false;
  const windows = process.platform === 'win32';
  const extensions = windows ? ['', ...(env.PATHEXT ?? '.EXE;.CMD;.BAT;.COM').split(';')] : [''];
  const directories = (env.PATH ?? env.Path ?? '').split(delimiter).filter((directory) => directory !== '');
  return directories.some((directory) =>
    extensions.some((extension) => isExecutableFile(join(directory, name + extension), windows)),
  );
}

function isExecutableFile(path: string, windows: boolean): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    if (!windows) accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
