import { optionRoutes, type OptionRoute } from './option-routes.js';
import { writeOptionRoutesSection } from './option-routes-section.js';

/** What {@link refreshOptionRoutes} found and did. */
export interface RefreshedOptionRoutes {
  /** The routes the actor's options add. */
  readonly routes: readonly OptionRoute[];
  /** Whether README.md's route section changed. */
  readonly written: boolean;
}

/**
 * Reads the definition of the actor in `actorDir` (its `src/actor.ts`, whose imports must
 * resolve), lists the routes its options add and writes them into its README.md between the
 * markers, so the list stays what the actor serves after `new`, `update` and any change of the
 * definition followed by `validate --write`.
 * @param actorDir the actor folder
 */
export async function refreshOptionRoutes(actorDir: string): Promise<RefreshedOptionRoutes> {
  const { loadActorSource } = await import('../../src/config/emit/load-actor-source.js');
  const routes = await optionRoutes((await loadActorSource(actorDir)).definition);
  return { routes, written: await writeOptionRoutesSection(actorDir, routes) };
}
