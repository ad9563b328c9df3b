import { flushPendingLines } from '../log/json-lines-sink.js';

/** The signals that shut an actor down gracefully. */
export type ShutdownSignal = 'SIGTERM' | 'SIGINT';

const SHUTDOWN_SIGNALS: readonly ShutdownSignal[] = ['SIGTERM', 'SIGINT'];

/** Signal handling and process exit of one runtime, as `serveActor` uses them. */
export interface SignalHost {
  /** Calls `handler` on SIGTERM and SIGINT; returns a function that removes the handlers. */
  onShutdownSignal(handler: (signal: ShutdownSignal) => void): () => void;
  /** Ends the process with `code`. */
  exit(code: number): void;
}

/**
 * Builds a `SignalHost` from a runtime's own subscribe, unsubscribe and exit functions.
 * @param on subscribes a listener to a signal
 * @param off removes it again
 * @param exit ends the process; the log lines still held are written first
 */
export function signalHost(
  on: (signal: ShutdownSignal, listener: () => void) => void,
  off: (signal: ShutdownSignal, listener: () => void) => void,
  exit: (code: number) => void,
): SignalHost {
  return {
    onShutdownSignal(handler) {
      const listeners = SHUTDOWN_SIGNALS.map((signal) => {
        const listener = () => handler(signal);
        on(signal, listener);
        return [signal, listener] as const;
      });
      return () => {
        for (const [signal, listener] of listeners) off(signal, listener);
      };
    },
    exit(code) {
      flushPendingLines();
      exit(code);
    },
  };
}

/**
 * Signal handling and exit through the `process` global, which Node and Bun both provide.
 * @internal shared by the Node and Bun adapters
 */
export const processSignals: SignalHost = signalHost(
  (signal, listener) => process.on(signal, listener),
  (signal, listener) => process.off(signal, listener),
  (code) => process.exit(code),
);
