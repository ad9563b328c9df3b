/** Severity of a log line, lowest first. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** One structured log line: the event name is a field, never part of free text. */
export interface LogRecord {
  readonly time: string;
  readonly level: LogLevel;
  readonly event: string;
  readonly [field: string]: unknown;
}

/** Where log records go; the default writes one JSON line per record to the console. */
export type LogSink = (record: LogRecord) => void;
