import { readFile } from 'node:fs/promises';
import type { PlatformConfig } from '../src/sdk/index.js';
import { CliError, type CliFailure, type CliIo, validateActorDir, type ActorProblem } from '../cli/library.js';

/** An actor the local platform accepted: its folder, its configuration and its instance ref. */
export interface RegisteredActor {
  readonly dir: string;
  /** The instance ref: the actor's slug (two hosted actors with one slug are refused). */
  readonly ref: string;
  readonly config: PlatformConfig;
}

/** A registration the platform refused: `validate`'s problems, one bullet each. */
export type RegistrationFailure = CliFailure & {
  readonly actorDir: string;
  readonly problems: readonly ActorProblem[];
};

/**
 * Registers an actor folder as the platform does: `validateActorDir` (the configuration emitted
 * from the code, the platform schema, the tuning rules), then reads the `src/platform/config.json`
 * the platform would read from the image. An invalid configuration is a `refused` result
 * (`invalid_config`) with validate's problems; a folder that is no actor is `validate`'s own refusal.
 * @param dir the actor folder, relative to `io.cwd`
 * @param io the CLI's streams and working directory
 */
export async function registerActor(
  dir: string,
  io: CliIo,
): Promise<RegisteredActor | RegistrationFailure | CliFailure> {
  const checked = await validateActorDir(dir, { io });
  if (!('problems' in checked)) return checked;
  if (checked.status !== 'ok') {
    const count = checked.problems.length;
    return {
      status: 'refused',
      code: 'invalid_config',
      message: `${checked.configPath} is not valid, so the platform does not register it: ${count} problem${count === 1 ? '' : 's'} (run actorkit validate ${dir})`,
      actorDir: checked.actorDir,
      problems: checked.problems,
    };
  }
  const config = JSON.parse(await readFile(checked.configPath, 'utf8')) as PlatformConfig;
  return { dir: checked.actorDir, ref: config.actor.slug, config };
}

/**
 * Refuses two hosted actors with one instance ref (`duplicate_ref`): a ref names one edge path,
 * one service and one database schema.
 * @param actors the registered actors
 */
export function refuseDuplicateRefs(actors: readonly RegisteredActor[]): void {
  const seen = new Map<string, string>();
  for (const actor of actors) {
    const first = seen.get(actor.ref);
    if (first !== undefined) {
      throw new CliError(
        'refused',
        'duplicate_ref',
        `${first} and ${actor.dir} both have the slug '${actor.ref}': the platform hosts one instance per slug (change actor.slug in one of them)`,
      );
    }
    seen.set(actor.ref, actor.dir);
  }
}
