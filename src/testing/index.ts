// Test factories for actors, for vitest.

export { createTestActor, testActorDefinition } from './create-test-actor.js';
