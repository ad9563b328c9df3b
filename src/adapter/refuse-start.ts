import { StartupRefusal } from '../environment/startup-refusal.js';
import type { SignalHost } from './signal-host.js';

/**
 * Ends a process whose actor refused to start: a `StartupRefusal` becomes one line on stderr
 * (the variable and what to do, no stack trace) and exit code 1. Any other error, or a
 * process the adapter does not own (`signals: false`), is left to the caller.
 * @param error what stopped the start
 * @param ownsProcess whether `serve` owns the process (its `signals` option)
 * @param exit the runtime's exit
 */
export function refuseStart(error: unknown, ownsProcess: boolean, exit: SignalHost['exit']): void {
  if (!(error instanceof StartupRefusal) || !ownsProcess) return;
  console.error(`actorkit: refusing to start: ${error.message}`);
  exit(1);
}
