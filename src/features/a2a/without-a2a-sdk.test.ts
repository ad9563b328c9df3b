// An actor whose @a2a-js/sdk cannot be imported: the SDK is an optional peer.
import { describe, expect, it, vi } from 'vitest';
import { createActorApp } from '../../app/create-actor-app.js';
import { defaultActorFeatures } from '../../core/actor-definition.js';
import { StartupRefusal } from '../../environment/startup-refusal.js';
import { silentLogger } from '../../log/logger.js';
import { MemoryStore } from '../../store/memory-store.js';
import { createTestActor, testActorDefinition } from '../../testing/create-test-actor.js';

const imports = vi.hoisted(() => ({ attempts: 0 }));
vi.mock('@a2a-js/sdk/server', () => {
  imports.attempts += 1;
  throw new Error("Cannot find package '@a2a-js/sdk' imported from actorkit");
});

describe('without @a2a-js/sdk installed', () => {
  it('an actor with exposeA2a off never imports it, and chats', async () => {
    const app = await createTestActor();
    const response = await app.request('/agent/invoke', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ user_identifier: 'u', session_id: 's', message: 'hi' }),
    });
    expect(response.status).toBe(200);
    expect(imports.attempts).toBe(0);
  });

  it('an actor with exposeA2a on refuses to start with one line that says what to install', async () => {
    const app = createActorApp({
      definition: { ...testActorDefinition, features: { ...defaultActorFeatures, exposeA2a: true } },
      env: {},
      logger: silentLogger,
      store: new MemoryStore(),
    });
    const refusal = await app.actor.start().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(StartupRefusal);
    expect(refusal).toMatchObject({ variable: 'expose_a2a' });
    expect((refusal as Error).message).toContain('npm install @a2a-js/sdk');
    expect((refusal as Error).message).not.toContain('\n');
    expect(app.actor.lifecycle.phase).toBe('starting');
    expect(imports.attempts).toBeGreaterThan(0);
  });
});
