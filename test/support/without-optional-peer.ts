import { describe, expect, it } from 'vitest';
import { createActorApp } from '../../src/app/create-actor-app.js';
import { defaultActorFeatures } from '../../src/core/actor-definition.js';
import { type OptionalPeer, StartupRefusal } from '../../src/environment/startup-refusal.js';
import { silentLogger } from '../../src/log/logger.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { createTestActor, testActorDefinition } from '../../src/testing/create-test-actor.js';

/**
 * The tests of an actor whose optional peer cannot be imported: with its option off the actor
 * never imports it and chats; with it on the start is refused in one line that says what to
 * install. The calling file mocks the package's module to throw and counts the attempts in
 * `imports` (a `vi.mock` must stay in the file it mocks for).
 * @param peer the package and the option that needs it
 * @param imports the mock's count of import attempts
 */
export function describeWithoutOptionalPeer(peer: OptionalPeer, imports: { readonly attempts: number }): void {
  describe(`without ${peer.packageName} installed`, () => {
    it(`an actor with ${peer.feature} off never imports it, and chats`, async () => {
      const app = await createTestActor();
      const response = await app.request('/agent/invoke', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ user_identifier: 'u', session_id: 's', message: 'hi' }),
      });
      expect(response.status).toBe(200);
      expect(imports.attempts).toBe(0);
    });

    it(`an actor with ${peer.feature} on refuses to start with one line that says what to install`, async () => {
      const app = createActorApp({
        definition: { ...testActorDefinition, features: { ...defaultActorFeatures, [peer.feature]: true } },
        env: {},
        logger: silentLogger,
        store: new MemoryStore(),
      });
      const refusal = await app.actor.start().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refusal).toBeInstanceOf(StartupRefusal);
      expect(refusal).toMatchObject({ variable: peer.option });
      expect((refusal as Error).message).toContain(`npm install ${peer.packageName}`);
      expect((refusal as Error).message).not.toContain('\n');
      expect(app.actor.lifecycle.phase).toBe('starting');
      expect(imports.attempts).toBeGreaterThan(0);
    });
  });
}
