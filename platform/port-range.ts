import { createServer } from 'node:net';
import { CliError, freeLocalPort } from '../cli/library.js';

/** Where the replicas and the service addresses of `actorkit platform` listen: a port taken for each, given back when its process ends. */
export interface PortSource {
  /** A port on 127.0.0.1 nothing listens on and nobody else was given. */
  take(): Promise<number>;
  /** Gives a port back (its replica exited). */
  release(port: number): void;
}

/** Any free port, as the system picks it: the default, without `--replica-ports`. */
export const ANY_FREE_PORT: PortSource = { take: freeLocalPort, release: () => undefined };

/** The option that sets a {@link PortRange}, for the messages. */
const OPTION = '--replica-ports';

/** Whether nothing listens on `port` of 127.0.0.1 (checked by listening on it a moment). */
function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/**
 * The ports from `first` to `last` (`--replica-ports 9100-9199`), handed out lowest free first:
 * a port something else listens on is skipped; none left is a `failed` error (`port_in_use`)
 * naming the range.
 */
export class PortRange implements PortSource {
  readonly first: number;
  readonly last: number;
  readonly #given = new Set<number>();

  /**
   * Reads `first-last`, or refuses it (`bad_usage`) with what is wrong.
   * @param raw the option's value, e.g. `9100-9199`
   */
  constructor(raw: string) {
    const match = /^\s*(\d{1,5})\s*-\s*(\d{1,5})\s*$/.exec(raw);
    const first = Number(match?.[1]);
    const last = Number(match?.[2]);
    if (match === null || first < 1 || last > 65_535 || first > last)
      throw new CliError(
        'refused',
        'bad_usage',
        `${OPTION} takes first-last, two port numbers from 1 to 65535 with first <= last (e.g. 9100-9199), got '${raw}'`,
      );
    this.first = first;
    this.last = last;
  }

  /** How many ports the range holds. */
  get size(): number {
    return this.last - this.first + 1;
  }

  /** Whether `port` is in the range. */
  holds(port: number): boolean {
    return port >= this.first && port <= this.last;
  }

  async take(): Promise<number> {
    for (let port = this.first; port <= this.last; port++) {
      if (this.#given.has(port)) continue;
      this.#given.add(port);
      if (await isFree(port)) return port;
      this.#given.delete(port);
    }
    throw new CliError(
      'failed',
      'port_in_use',
      `every port of ${OPTION} ${this.first}-${this.last} is taken (by the platform's replicas and service addresses, or by other programs): pass a wider or another range`,
    );
  }

  release(port: number): void {
    this.#given.delete(port);
  }
}
