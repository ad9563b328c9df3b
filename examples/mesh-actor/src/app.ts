import { createActorApp, type ActorApp, type ActorEnvironment, type CreateActorAppOptions } from 'actorkit';
import actor, { type Settings } from './actor.js';
import { domainTools } from './agent/tools/index.js';
import platformConfig from './platform/config.json' with { type: 'json' };
import { SYSTEM_PROMPT } from './prompts/system-prompt.js';
import { WeatherClient } from './weather/client.js';

const processEnv = (): ActorEnvironment => (globalThis as { process?: { env?: ActorEnvironment } }).process?.env ?? {};

/**
 * Builds Mesh Actor: wires its domain client and tools, and the answers to its peer reads, into the actor src/actor.ts
 * declares; createActorApp mounts everything else from that definition.
 * @param env environment variables; the runtime's own by default
 * @param overrides options for tests, e.g. an in-memory store
 */
export function createApp(env: ActorEnvironment = processEnv(), overrides: Partial<CreateActorAppOptions> = {}): ActorApp {
  let client: WeatherClient | undefined;
  // The client reads the settings live, so a value changed by PUT /settings reaches its next call.
  const settings = () => app.actor.context.settings.values as unknown as Settings;
  const getClient = () => (client ??= new WeatherClient(settings, { logger: app.actor.logger }));
  const app: ActorApp = createActorApp({
    definition: actor,
    env,
    platformConfig,
    instructions: SYSTEM_PROMPT,
    tools: domainTools(getClient),
    readinessChecks: () => getClient().readinessChecks(),
    healthChecks: { weather: () => getClient().healthCheck() },
    peerReads: { '/lookup/:topic': ({ params }) => getClient().lookup(params.topic ?? '') },
    ...overrides,
  });
  return app;
}
