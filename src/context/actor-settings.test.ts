import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import type { ActorDefinition } from '../core/actor-definition.js';
import { StartupRefusal } from '../environment/startup-refusal.js';
import { createTestActor, testActorDefinition } from '../testing/create-test-actor.js';
import { ActorSettings } from './actor-settings.js';

// Issue #16 items 4 and 19: a secret's received value never appears in a message, and PUT
// /settings names every bad field of the body in one 422.

const SECRET = 'sk-live-0123456789abcdef';

/** An actor with secrets that have rules (a prefix, a length, a number), so a bad value has something to be refused for. */
const definition: ActorDefinition = {
  ...testActorDefinition,
  settings: v.object({
    greeting: v.optional(v.pipe(v.string(), v.minLength(1), v.metadata({ 'x-platform-section': 'general' })), 'Hello'),
    max_items: v.optional(
      v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100), v.metadata({ 'x-platform-section': 'general' })),
      10,
    ),
    weather_api_key: v.optional(
      v.pipe(
        v.string(),
        v.regex(/^wk-/),
        v.minLength(40),
        v.metadata({ 'x-platform-section': 'general', writeOnly: true }),
      ),
    ),
    pin: v.optional(
      v.pipe(v.number(), v.integer(), v.metadata({ 'x-platform-section': 'general', 'x-platform-widget': 'password' })),
    ),
    choice_secret: v.optional(
      v.pipe(
        v.picklist(['alpha-secret-1', 'beta-secret-2']),
        v.metadata({ 'x-platform-section': 'general', writeOnly: true }),
      ),
    ),
  }),
};

const put = (body: unknown) => ({
  method: 'PUT',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify(body),
});

describe('secret settings in messages', () => {
  it('a start-up refusal names the bad secret without its value', () => {
    for (const env of [{ WEATHER_API_KEY: SECRET }, { PIN: `12${SECRET}` }, { CHOICE_SECRET: SECRET }]) {
      let refusal: unknown;
      try {
        new ActorSettings(definition, env);
      } catch (error) {
        refusal = error;
      }
      expect(refusal).toBeInstanceOf(StartupRefusal);
      const message = (refusal as Error).message;
      expect(message).toMatch(/weather_api_key|pin|choice_secret/);
      expect(message).not.toContain(SECRET);
      expect(message).not.toContain('0123456789');
    }
  });

  it('the 422 of PUT /settings names the bad secret without its value', async () => {
    const app = await createTestActor({ definition });
    for (const body of [
      { weather_api_key: SECRET },
      { weather_api_key: `wk-${SECRET}` },
      { pin: SECRET },
      { pin: 1.5 },
      { choice_secret: SECRET },
      { weather_api_key: 12345678901 },
    ]) {
      const response = await app.request('/settings', put(body));
      expect(response.status, JSON.stringify(body)).toBe(422);
      const text = await response.text();
      const key = Object.keys(body)[0]!;
      expect(JSON.parse(text).errors.map((error: { pointer: string }) => error.pointer)).toEqual([`/${key}`]);
      for (const value of Object.values(body)) expect(text, text).not.toContain(String(value));
      expect(text).not.toContain('0123456789');
    }
  });

  it('a plain setting still says what it received', async () => {
    const app = await createTestActor({ definition });
    const text = await (await app.request('/settings', put({ max_items: 'lots' }))).text();
    expect(text).toContain('lots');
  });
});

describe('PUT /settings reports every bad field at once', () => {
  it('unknown keys and bad values together, in one 422, changing nothing', async () => {
    const app = await createTestActor({ definition });
    const response = await app.request(
      '/settings',
      put({ greeting: '', max_items: 1000, colour: 'red', size: 3, weather_api_key: SECRET }),
    );
    expect(response.status).toBe(422);
    const problem = (await response.json()) as { detail: string; errors: { pointer: string; detail: string }[] };
    expect(problem.errors.map((error) => error.pointer).sort()).toEqual([
      '/colour',
      '/greeting',
      '/max_items',
      '/size',
      '/weather_api_key',
    ]);
    expect(problem.errors.find((error) => error.pointer === '/colour')?.detail).toBe('is not a known setting');
    expect(problem.detail).toBe('The settings body has 5 invalid fields');
    expect(app.actor.context.settings.values.greeting).toBe('Hello');
  });
});
