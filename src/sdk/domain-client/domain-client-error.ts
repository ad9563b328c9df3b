/** Options of a `DomainClientError`. */
export interface DomainClientErrorOptions {
  readonly cause?: unknown;
  /** Extra structured fields for the log line (never secrets). */
  readonly fields?: Record<string, unknown>;
}

/**
 * The error a domain client throws: it carries a stable snake_case `event` name (for example
 * `weather_api_unavailable`) that log searches and `safeCall`'s warning use, whatever the message says.
 * @example
 * throw new DomainClientError('weather_api_unavailable', `upstream answered ${status}`);
 */
export class DomainClientError extends Error {
  readonly event: string;
  readonly fields: Record<string, unknown>;

  constructor(event: string, message: string, options: DomainClientErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = 'DomainClientError';
    this.event = event;
    this.fields = options.fields ?? {};
  }
}
