import { describe, expect, it } from 'vitest';
import helloActor from '../../examples/hello-actor/src/actor.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { createTestActor } from '../../src/testing/create-test-actor.js';

// The agent reads its knobs once per settings object (ActorSettings replaces the frozen object
// when a setting changes), so a live setting saved by PUT /settings must still reach the next
// invoke, and a bad value saved by another replica must still refuse it.

const put = (body: unknown) => ({
  method: 'PUT',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify(body),
});
const invoke = (message: string) => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify({ user_identifier: 'u', session_id: 's', message }),
});
const content = async (response: Response) =>
  ((await response.json()) as { message: { content: string } }).message.content;

describe('a live agent setting changed by PUT /settings', () => {
  it('reaches the very next invoke, and again when changed back', async () => {
    const app = await createTestActor({ definition: helloActor, store: new MemoryStore() });
    await app.request('/agent/invoke', invoke('one'));
    expect(await content(await app.request('/agent/invoke', invoke('two')))).toContain('I can see 2 earlier messages');
    expect((await app.request('/settings', put({ history_limit: 0 }))).status).toBe(200);
    expect(await content(await app.request('/agent/invoke', invoke('three')))).not.toContain('earlier message');
    expect((await app.request('/settings', put({ history_limit: 1 }))).status).toBe(200);
    expect(await content(await app.request('/agent/invoke', invoke('four')))).toContain(
      'I can see 1 earlier message of',
    );
  });

  it('gives every turn settings that cannot be changed in place', async () => {
    const app = await createTestActor({ definition: helloActor, store: new MemoryStore() });
    expect(Object.isFrozen(app.actor.context.settings.values)).toBe(true);
    expect((await app.request('/settings', put({ history_limit: 3 }))).status).toBe(200);
    expect(Object.isFrozen(app.actor.context.settings.values)).toBe(true);
    expect(app.actor.context.settings.values.history_limit).toBe(3);
  });
});
