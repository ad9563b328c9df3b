import { readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { CliError } from '../cli-error.js';
import { firstLinkOnPath } from '../links-on-path.js';

/**
 * Collects the symbolic links an update would pass on its way to files of the actor: a linked
 * folder anywhere on a path, or a linked file at its end. `update` never writes, deletes or reads
 * through one (a link can lead anywhere outside the actor), so any found is a refusal.
 */
export class ActorLinks {
  readonly #actorDir: string;
  readonly #found = new Map<string, string>();

  /** @param actorDir the actor folder the paths are relative to. */
  constructor(actorDir: string) {
    this.#actorDir = actorDir;
  }

  /**
   * Whether `path` is free of links; a link found is remembered for {@link ActorLinks.refuseAny}.
   * @param path a POSIX path relative to the actor.
   */
  passable(path: string): boolean {
    const link = firstLinkOnPath(this.#actorDir, path);
    if (link === undefined) return true;
    this.#found.set(link, readlinkSync(join(this.#actorDir, link)));
    return false;
  }

  /** Throws one `refused` {@link CliError} (`actor_symlink`) naming every link found, if any. */
  refuseAny(): void {
    if (this.#found.size === 0) return;
    const links = [...this.#found]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([path, target]) => `${path} is a symbolic link (to ${target})`);
    throw new CliError(
      'refused',
      'actor_symlink',
      `update does not write, delete or read through symbolic links, which can lead outside ${this.#actorDir}: ${links.join('; ')}; nothing was written. ` +
        'Replace each link by a copy of what it points to, or remove it, then run update again',
    );
  }
}
