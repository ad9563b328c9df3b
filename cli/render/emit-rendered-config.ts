import { existsSync } from 'node:fs';
import { mkdir, rm, symlink } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { CliError } from '../cli-error.js';
import { refreshOptionRoutes, type OptionRoute } from '../route-list/index.js';

/** The packages a freshly rendered actor's definition imports before its own `npm install`. */
const DEFINITION_IMPORTS = ['actorkit', 'valibot'] as const;

/** The folder of an installed package as `require` finds it (packages need not export their package.json). */
function packageFolder(require: NodeRequire, name: string): string {
  const folder = (require.resolve.paths(name) ?? [])
    .map((modules) => join(modules, name))
    .find((candidate) => existsSync(join(candidate, 'package.json')));
  if (folder === undefined) throw new Error(`cannot find the ${name} package next to actorkit`);
  return folder;
}

/** What {@link emitRenderedConfig} wrote. */
export interface RenderedConfig {
  /** The emitted configuration, relative to the actor folder. */
  readonly file: string;
  /** The routes the actor's options add, as its `/openapi.json` documents them (also written into its README). */
  readonly routes: readonly OptionRoute[];
}

/**
 * Emits `src/platform/config.json` into a freshly rendered actor, so it is complete before
 * its first `npm install`, and writes the routes its options add into its README (between the
 * markers the template rendered), read from the definition once it exists. The actor's
 * `src/actor.ts` imports `actorkit` and `valibot`, which are not installed there yet: they are
 * linked, for the emission only, to the packages this CLI runs with, and the links are removed
 * afterwards. Does nothing for a template without `src/actor.ts`.
 * @param actorDir the rendered actor (the staging folder)
 * @param packageRoot the actorkit package root
 * @returns the written file and the route list, or undefined
 */
export async function emitRenderedConfig(actorDir: string, packageRoot: string): Promise<RenderedConfig | undefined> {
  if (!existsSync(join(actorDir, 'src', 'actor.ts')) || !existsSync(join(actorDir, 'package.json'))) return undefined;
  const modules = join(actorDir, 'node_modules');
  const hadModules = existsSync(modules);
  const require = createRequire(join(packageRoot, 'package.json'));
  const links: string[] = [];
  try {
    for (const name of DEFINITION_IMPORTS) {
      const link = join(modules, name);
      if (existsSync(link)) continue;
      const location = name === 'actorkit' ? packageRoot : packageFolder(require, name);
      await mkdir(dirname(link), { recursive: true });
      await symlink(location, link, 'dir');
      links.push(link);
    }
    const { emitPlatformConfig } = await import('../../src/sdk/index.js');
    const result = await emitPlatformConfig(actorDir);
    const { routes } = await refreshOptionRoutes(actorDir);
    return { file: relative(actorDir, result.path), routes };
  } catch (error) {
    throw new CliError(
      'failed',
      'emit_failed',
      `the template rendered, but its configuration could not be emitted: ${(error as Error).message}`,
      { cause: error },
    );
  } finally {
    if (hadModules) await Promise.all(links.map((link) => rm(link, { force: true })));
    else await rm(modules, { recursive: true, force: true });
  }
}
