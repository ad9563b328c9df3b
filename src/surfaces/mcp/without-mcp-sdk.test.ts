// An actor whose @modelcontextprotocol/sdk cannot be imported: the SDK is an optional peer.
import { describe, expect, it, vi } from 'vitest';
import { createActorApp } from '../../app/create-actor-app.js';
import { defaultActorFeatures } from '../../core/actor-definition.js';
import { StartupRefusal } from '../../environment/startup-refusal.js';
import { silentLogger } from '../../log/logger.js';
import { MemoryStore } from '../../store/memory-store.js';
import { createTestActor, testActorDefinition } from '../../testing/create-test-actor.js';

const imports = vi.hoisted(() => ({ attempts: 0 }));
vi.mock('@modelcontextprotocol/sdk/server/index.js', () => {
  imports.attempts += 1;
  throw new Error("Cannot find package '@modelcontextprotocol/sdk' imported from actorkit");
});

describe('without @modelcontextprotocol/sdk installed', () => {
  it('an actor with exposeMcp off never imports it, and chats', async () => {
    const app = await createTestActor();
    const response = await app.request('/agent/invoke', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ user_identifier: 'u', session_id: 's', message: 'hi' }),
    });
    expect(response.status).toBe(200);
    expect(imports.attempts).toBe(0);
  });

  it('an actor with exposeMcp on refuses to start with one line that says what to install', async () => {
    const app = createActorApp({
      definition: { ...testActorDefinition, features: { ...defaultActorFeatures, exposeMcp: true } },
      env: {},
      logger: silentLogger,
      store: new MemoryStore(),
    });
    const refusal = await app.actor.start().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(StartupRefusal);
    expect(refusal).toMatchObject({ variable: 'expose_mcp' });
    expect((refusal as Error).message).toContain('npm install @modelcontextprotocol/sdk');
    expect((refusal as Error).message).not.toContain('\n');
    expect(app.actor.lifecycle.phase).toBe('starting');
    expect(imports.attempts).toBeGreaterThan(0);
  });
});
