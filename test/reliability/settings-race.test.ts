import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServeHandle } from '../../src/adapter/serve-options.js';
import { testActorDefinition } from '../../src/testing/create-test-actor.js';
import {
  type ReliabilityActor,
  serveReliabilityActor,
  startReliabilityActor,
  unexpectedErrors,
} from './support/reliability-actor.js';
import { assertResponseInvariants, observe } from './support/response-invariants.js';

// Concurrent PUT /settings over a real socket, on an SQLite file: each accepted update is
// applied whole (its fields appear together), rejected ones change nothing, the live
// configuration is always valid and equal to what one of the accepted updates produced (but for
// the restart-required keys, which keep their start value until a restart), and the stored
// overrides give the saved configuration after a restart.

type Update = Record<string, unknown>;

/** Updates whose fields belong together: `greeting` names the `max_items` it was sent with. */
const pairedUpdate = fc
  .integer({ min: 1, max: 100 })
  .map((items): Update => ({ greeting: `pair-${items}`, max_items: items }));
const update = fc.oneof(
  { weight: 4, arbitrary: pairedUpdate },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 100 }).map((items): Update => ({ max_items: items })) },
  { weight: 1, arbitrary: fc.constantFrom<Update>({ model: 'other-model' }, { api_token: 's3cret-token' }, {}) },
  // Invalid as a whole: one bad field must keep the good one out too.
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.integer({ min: 1, max: 100 }), fc.constantFrom<unknown>(0, 101, 2.5, '7', null))
      .map(([items, bad]): Update => ({ greeting: `bad-${items}`, max_items: bad })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Update>({ greeting: '' }, { unknown_setting: 1 }, { greeting: 'ok', nope: true }),
  },
);

const isValid = (settings: Record<string, unknown>) => v.safeParse(testActorDefinition.settings, settings).success;

/** The settings as `PUT /settings` shows them: secrets masked; restart-required keys left out (they are not live before a restart). */
function shown(values: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const restartRequired: readonly string[] = testActorDefinition.restartRequired ?? [];
  return Object.fromEntries(
    Object.entries(values)
      .filter(([key]) => !restartRequired.includes(key))
      .map(([key, value]) => [key, key === 'api_token' ? '********' : value]),
  );
}

describe('concurrent PUT /settings', () => {
  let dataDir: string;
  let actor: ReliabilityActor & { server: ServeHandle };
  let env: Record<string, string>;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'actorkit-settings-race-'));
    env = { DATABASE_URL: `file:${join(dataDir, 'actor.db')}` };
    actor = await serveReliabilityActor(env);
  });
  afterAll(async () => {
    await actor.server.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('races leave a consistent, valid configuration that survives a restart', async () => {
    const url = `${actor.server.url}/settings`;
    await fc.assert(
      fc.asyncProperty(fc.array(update, { minLength: 10, maxLength: 40 }), async (updates) => {
        const before = { ...actor.app.actor.context.settings.values };
        const answers = await Promise.all(
          updates.map(async (body) => {
            const response = await fetch(url, {
              method: 'PUT',
              headers: { 'Content-Type': 'application/json' },
              body: JSON.stringify(body),
            });
            const text = await response.text();
            assertResponseInvariants(observe(response, text), 'PUT');
            return {
              body,
              status: response.status,
              settings:
                response.status === 200
                  ? (JSON.parse(text) as { settings: Record<string, unknown> }).settings
                  : undefined,
            };
          }),
        );
        const accepted = answers.filter((answer) => answer.status === 200);
        for (const answer of answers) {
          const valid =
            isValid({ ...before, ...answer.body }) &&
            Object.keys(answer.body).every((key) => Object.hasOwn(testActorDefinition.settings.entries, key));
          expect(answer.status, JSON.stringify(answer.body)).toBe(valid ? 200 : 422);
        }
        for (const { body, settings } of accepted) {
          // The answer shows the configuration right after this update: all of it applied, all of it valid.
          for (const [key, value] of Object.entries(body))
            expect(settings![key]).toEqual(key === 'api_token' ? '********' : value);
          expect(isValid({ ...settings, api_token: 'x' })).toBe(true);
        }
        const live = actor.app.actor.context.settings.values;
        expect(isValid({ ...live })).toBe(true);
        expect(String(live.greeting).startsWith('bad-')).toBe(false);
        if (accepted.length > 0) expect(accepted.map((answer) => shown(answer.settings!))).toContainEqual(shown(live));
        else expect(live).toEqual(before);
        expect(live.model, 'a restart-required key is not live before a restart').toBe(before.model);
      }),
      { numRuns: 25 },
    );
    expect(unexpectedErrors(actor.logs)).toEqual([]);

    const live = { ...actor.app.actor.context.settings.values };
    const saved = await actor.app.actor.context.store.loadSettingsOverrides();
    await actor.server.close();
    const restarted = await startReliabilityActor(env);
    try {
      expect(restarted.app.actor.context.settings.values).toEqual({ ...live, model: saved.model ?? live.model });
    } finally {
      await restarted.app.actor.shutdown();
    }
  });
});
