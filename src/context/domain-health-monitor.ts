import { errorFirstLine } from '../core/error-first-line.js';
import { withTimeout } from '../core/with-timeout.js';

/** What a domain client's `healthCheck()` reports; the shape of one `/health` check. */
export interface DomainHealth {
  readonly status: 'pass' | 'warn' | 'fail';
  readonly output: string;
}

/** The actor's own health checks, keyed by the name `/health` lists them under: `{weather: () => client.healthCheck()}`. */
export type DomainHealthChecks = Readonly<Record<string, () => DomainHealth | PromiseLike<DomainHealth>>>;

/** Options of a `DomainHealthMonitor`. */
export interface DomainHealthMonitorOptions {
  /** A check that takes longer counts as failing (`HEALTH_CHECK_TIMEOUT_MS`). */
  readonly timeoutMs: number;
  /** `refresh()` runs the checks again only when the last run started longer ago than this (default 5,000 ms). */
  readonly maxAgeMs?: number;
}

const STATUSES: ReadonlySet<unknown> = new Set(['pass', 'warn', 'fail']);

/** Whether a check answered the shape `/health` shows (a plain-JavaScript check may answer anything). */
function isDomainHealth(value: unknown): value is DomainHealth {
  const health = value as Partial<DomainHealth> | null | undefined;
  return (
    typeof health === 'object' && health !== null && STATUSES.has(health.status) && typeof health.output === 'string'
  );
}

const NOT_CHECKED: DomainHealth = { status: 'warn', output: 'not checked yet' };

/**
 * The last known state of the actor's own health checks (a domain client's `healthCheck()`),
 * for `/health`. Reading it never waits on a check: `refresh()` runs the checks in the
 * background when the last run is stale, each bounded by `timeoutMs`; a check that throws,
 * rejects or times out is `fail`. Until its first answer a check is `warn`, `not checked yet`.
 * @example
 * const monitor = new DomainHealthMonitor({ weather: () => client.healthCheck() }, { timeoutMs: 2_000 });
 * monitor.refresh();
 * const { weather } = monitor.status();
 */
export class DomainHealthMonitor {
  readonly #checks: DomainHealthChecks;
  readonly #timeoutMs: number;
  readonly #maxAgeMs: number;
  readonly #last = new Map<string, DomainHealth>();
  /** What `status()` answers until a check's state changes: `/health` reads it on every probe. */
  #status: Readonly<Record<string, DomainHealth>> | undefined;
  #startedAtMs: number | null = null;
  #run: Promise<void> | undefined;

  constructor(checks: DomainHealthChecks, options: DomainHealthMonitorOptions) {
    this.#checks = checks;
    this.#timeoutMs = options.timeoutMs;
    this.#maxAgeMs = options.maxAgeMs ?? 5_000;
  }

  /** `{name: last known state}` for each check; `{}` when the actor has none. Never runs a check. */
  status(): Readonly<Record<string, DomainHealth>> {
    return (this.#status ??= Object.freeze(
      Object.fromEntries(Object.keys(this.#checks).map((name) => [name, this.#last.get(name) ?? NOT_CHECKED])),
    ));
  }

  /** Starts a background run of the checks when none is in flight and the last one is older than `maxAgeMs`; returns at once. */
  refresh(): void {
    if (this.#run !== undefined || Object.keys(this.#checks).length === 0) return;
    if (this.#startedAtMs !== null && Date.now() - this.#startedAtMs < this.#maxAgeMs) return;
    this.#startedAtMs = Date.now();
    this.#run = Promise.all(Object.entries(this.#checks).map(([name, check]) => this.#runOne(name, check))).then(() => {
      this.#run = undefined;
    });
  }

  async #runOne(name: string, check: () => DomainHealth | PromiseLike<DomainHealth>): Promise<void> {
    let result: DomainHealth;
    try {
      result = await withTimeout(
        (async () => check())(),
        this.#timeoutMs,
        (): DomainHealth => ({ status: 'fail', output: `health check timed out after ${this.#timeoutMs} ms` }),
      );
    } catch (error) {
      result = { status: 'fail', output: errorFirstLine(error) };
    }
    this.#status = undefined;
    this.#last.set(
      name,
      isDomainHealth(result)
        ? { status: result.status, output: result.output }
        : { status: 'fail', output: 'health check answered no {status: "pass"|"warn"|"fail", output}' },
    );
  }
}
