/**
 * Loaded first in every process `actorkit dev` starts for the actor (`--import` for the actor
 * under Node, imported by the warm spare): ends the process when `actorkit dev` is gone, however
 * it went (SIGKILL included), so no actor is left listening and holding its SQLite file. The
 * process's standard input is a pipe from `actorkit dev`, which the system closes when
 * `actorkit dev` exits; then the process gets SIGTERM — the actor's own graceful shutdown, store
 * closed — and is ended outright if it is still there `HARD_EXIT_MS` later. `actorkit platform`
 * loads the same file into its replicas (`EXIT_WITH_PARENT_PRELOAD`, `cli/child-process.ts`).
 */

/** How long the actor may take over its graceful shutdown once `actorkit dev` is gone. */
const HARD_EXIT_MS = 10_000;

const parentGone = () => {
  setTimeout(() => process.exit(1), HARD_EXIT_MS).unref();
  process.kill(process.pid, 'SIGTERM');
};

process.stdin.once('end', parentGone);
process.stdin.once('error', parentGone);
process.stdin.resume();
// The pipe must not keep the process alive once the actor has stopped.
(process.stdin as { unref?: () => void }).unref?.();
