import type { ChildProcess } from 'node:child_process';

/**
 * Signals a child process that is still running, or with SIGKILL its whole process group (a
 * child started `detached`, with what it started itself, such as tsx's esbuild service).
 * @param child the process
 * @param signal the signal to send
 */
export function signalProcess(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(signal === 'SIGKILL' ? -child.pid : child.pid, signal);
  } catch {
    // already gone
  }
}
