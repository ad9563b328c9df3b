import { createActorApp, type ActorApp, type ActorEnvironment } from 'actorkit';
import platformConfig from './platform/config.json' with { type: 'json' };
import helloActor from './actor.js';

/**
 * Builds the hello actor's app. Entries for each runtime (`main.node.ts`, `main.bun.ts`,
 * `main.deno.ts`) serve it.
 * @param env environment variables; the runtime's own by default
 */
export function createHelloActor(env?: ActorEnvironment): ActorApp {
  return createActorApp({ definition: helloActor, platformConfig, ...(env ? { env } : {}) });
}
