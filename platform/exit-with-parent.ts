/**
 * Loaded first in every replica `actorkit platform` starts (`--import`): ends the replica when
 * the platform is gone, however it went (SIGKILL included), so no replica is left listening. The
 * replica's standard input is a pipe from the platform, which the system closes when the platform
 * exits; then the replica gets SIGTERM — its own graceful shutdown, store closed — and is ended
 * outright if it is still there `HARD_EXIT_MS` later. The platform is a product of its own and
 * carries its own copy of this preload (the CLI's dev loop has the same one, `cli/dev/exit-with-parent.ts`):
 * a replica loads it by file path, which no import rule sees.
 */

/** How long the replica may take over its graceful shutdown once the platform is gone. */
const HARD_EXIT_MS = 10_000;

const parentGone = () => {
  setTimeout(() => process.exit(1), HARD_EXIT_MS).unref();
  process.kill(process.pid, 'SIGTERM');
};

process.stdin.once('end', parentGone);
process.stdin.once('error', parentGone);
process.stdin.resume();
// The pipe must not keep the process alive once the replica has stopped.
(process.stdin as { unref?: () => void }).unref?.();
