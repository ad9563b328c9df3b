import { watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import type { CliIo } from '../cli-io.js';
import { validateActorDir } from '../validate/validate-actor-dir.js';
import { problemBullet } from '../validate/actor-problem.js';

/** The outcome of one configuration check under `actorkit dev`. */
export interface ConfigCheck {
  readonly status: 'ok' | 'failed';
  /** One line per problem, as `actorkit validate` prints them. */
  readonly problems: readonly string[];
}

/**
 * Emits the actor's configuration in check mode and checks it (`actorkit validate`, nothing
 * written), as lines to print.
 * @param actorDir the actor's folder
 * @param io the streams and environment of the run
 */
export async function checkActorConfig(actorDir: string, io: CliIo): Promise<ConfigCheck> {
  const result = await validateActorDir(actorDir, { io: { ...io, cwd: actorDir }, write: false });
  if (!('problems' in result)) return { status: 'failed', problems: [`- ${result.message}`] };
  return { status: result.status, problems: result.problems.map(problemBullet) };
}

/**
 * Checks the configuration again on every change of `src/actor.ts` (changes within 200 ms are
 * one; checks never overlap), reporting each outcome. Returns the watcher to close.
 * @param actorDir the actor's folder
 * @param io the streams and environment of the run
 * @param report called with each check's outcome
 */
export function recheckConfigOnChange(actorDir: string, io: CliIo, report: (check: ConfigCheck) => void): FSWatcher {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const run = () => {
    running = running.then(async () => report(await checkActorConfig(actorDir, io))).catch(() => undefined);
  };
  return watch(join(actorDir, 'src'), (_event, file) => {
    if (file !== 'actor.ts') return;
    clearTimeout(timer);
    timer = setTimeout(run, 200);
  });
}
