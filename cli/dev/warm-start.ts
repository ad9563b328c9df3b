/**
 * A warm spare of the actor under `actorkit dev` (Node): started with tsx's loader while the
 * actor runs, it loads actorkit and then waits. When a save restarts the actor, `actorkit dev`
 * writes a line on its standard input and it imports the actor's entry, so a restart pays only
 * for the actor's own files (loading actorkit through the loader takes most of a cold start).
 * Its standard input stays open after that line: its closing (actorkit dev went away) ends the
 * process, spare or actor (see `exit-with-parent.ts`).
 *
 * Run as `node --import <tsx loader> warm-start.js <entry>`, in the actor's folder.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import './exit-with-parent.js';

const entry = process.argv[2];
if (entry === undefined) {
  console.error('warm-start: the actor entry is missing (warm-start.js <entry>)');
  process.exit(2);
}
// Listening at once: the line may come while actorkit is still loading.
const told = new Promise((resolveTold) => process.stdin.once('data', resolveTold));
// exit-with-parent.js lets go of the pipe (it must not keep a stopped actor alive), but a spare
// has nothing else to wait on: without this, once actorkit is loaded and nothing else is
// pending, Node ends the spare with exit code 13 (a top-level await never settled), and the
// next save finds no actor. Held until the line comes; the actor holds itself after that.
(process.stdin as { ref?: () => void }).ref?.();
// Self-references resolve to the same files the actor's own `import 'actorkit'` loads.
await Promise.all([import('actorkit'), import('actorkit/node'), import('actorkit/sdk')]);
await told;
(process.stdin as { unref?: () => void }).unref?.();
await import(pathToFileURL(resolve(entry)).href);
