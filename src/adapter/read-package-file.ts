import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

const requireFromActorkit = createRequire(import.meta.url);

/**
 * The text of a file of an installed package (`swagger-ui-dist/swagger-ui.css`), resolved as
 * actorkit itself would import it; undefined when the package is not installed. Node, Bun and
 * Deno all offer `node:fs` and `node:module`, so the three adapters share it.
 * @param specifier the package name and the file's path inside it
 */
export async function readPackageFile(specifier: string): Promise<string | undefined> {
  let path: string;
  try {
    path = requireFromActorkit.resolve(specifier);
  } catch {
    return undefined;
  }
  return readFile(path, 'utf8');
}
