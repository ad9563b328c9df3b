import { createActorApp, type ActorApp, type ActorEnvironment, type CreateActorAppOptions } from 'actorkit';
import actor, { type Settings } from './actor.js';
import { domainTools } from './agent/tools/index.js';
import platformConfig from './platform/config.json' with { type: 'json' };
import { SYSTEM_PROMPT } from './prompts/system-prompt.js';
import { HelloClient } from './hello/client.js';

const processEnv = (): ActorEnvironment => (globalThis as { process?: { env?: ActorEnvironment } }).process?.env ?? {};

/**
 * Builds Hello Actor: wires its domain client and tools into the actor src/actor.ts
 * declares; createActorApp mounts everything else from that definition.
 * @param env environment variables; the runtime's own by default
 * @param overrides options for tests, e.g. an in-memory store
 */
export function createApp(env: ActorEnvironment = processEnv(), overrides: Partial<CreateActorAppOptions> = {}): ActorApp {
  let client: HelloClient | undefined;
  // The client reads the settings live, so a value changed by PUT /settings reaches its next call.
  const settings = () => app.actor.context.settings.values as unknown as Settings;
  const getClient = () => (client ??= new HelloClient(settings, { logger: app.actor.logger }));
  const app: ActorApp = createActorApp({
    definition: actor,
    env,
    platformConfig,
    instructions: SYSTEM_PROMPT,
    tools: domainTools(getClient),
    readinessChecks: () => getClient().readinessChecks(),
    healthChecks: { hello: () => getClient().healthCheck() },
    ...overrides,
  });
  return app;
}
