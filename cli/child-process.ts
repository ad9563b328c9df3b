import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/**
 * The preload that ends a child actor when the process that started it is gone, SIGKILL included
 * (`cli/dev/exit-with-parent.ts`): `actorkit dev` loads it into its actor, `actorkit platform`
 * into each replica, as `node --import <this URL>`.
 */
export const EXIT_WITH_PARENT_PRELOAD: string = new URL('./dev/exit-with-parent.js', import.meta.url).href;

/** A TCP port on 127.0.0.1 that was free a moment ago: the system picks it (port 0) and it is released at once. */
export function freeLocalPort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null ? resolvePort(address.port) : reject(new Error('no free port')),
      );
    });
    server.once('error', reject);
  });
}

/**
 * Sends `signal` to a child started in its own process group: SIGKILL to the whole group (what it
 * started goes too), any other signal to the child alone, which stops its own children; nothing
 * when it has already ended.
 */
export function signalProcess(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(signal === 'SIGKILL' ? -child.pid : child.pid, signal);
  } catch {
    // already gone
  }
}
