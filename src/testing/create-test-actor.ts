import * as v from 'valibot';
import { defaultActorFeatures, type ActorDefinition } from '../core/actor-definition.js';
import type { CreateActorAppOptions } from '../app/create-actor-app-options.js';
import { createActorApp, type ActorApp } from '../app/create-actor-app.js';
import { silentLogger } from '../log/logger.js';
import { MemoryStore } from '../store/memory-store.js';

/** A small actor definition for tests: one plain setting and one secret. */
export const testActorDefinition: ActorDefinition = {
  metadata: {
    name: 'Test Actor',
    slug: 'test-actor',
    version: '1.2.3',
    description: 'An actor for tests',
    domain: 'test',
    tags: ['test'],
  },
  features: defaultActorFeatures,
  settings: v.object({
    greeting: v.optional(v.pipe(v.string(), v.minLength(1), v.metadata({ 'x-platform-section': 'general' })), 'Hello'),
    max_items: v.optional(
      v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100), v.metadata({ 'x-platform-section': 'general' })),
      10,
    ),
    api_token: v.optional(v.pipe(v.string(), v.metadata({ 'x-platform-section': 'general', writeOnly: true }))),
    model: v.optional(v.string(), 'offline'),
  }),
  sections: [{ id: 'general', title: 'General' }],
  restartRequired: ['model'],
};

/**
 * Builds and starts an actor for a test: in-memory store, silent logs, empty environment
 * unless given. Requests go through `app.request(...)` without a server.
 * @example
 * const app = await createTestActor();
 * expect((await app.request('/health')).status).toBe(200);
 */
export async function createTestActor(
  options: Partial<CreateActorAppOptions> = {},
): Promise<ActorApp & { readonly store: MemoryStore | CreateActorAppOptions['store'] }> {
  const store = options.store ?? new MemoryStore();
  const app = createActorApp({ definition: testActorDefinition, env: {}, logger: silentLogger, ...options, store });
  await app.actor.start();
  return Object.assign(app, { store });
}
