import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import helloActor from '../../../examples/hello-actor/src/actor.js';
import { createActorApp } from '../../app/create-actor-app.js';
import { silentLogger } from '../../log/logger.js';
import { platformField } from '../../sdk/platform-field/index.js';
import { MemoryStore } from '../../store/memory-store.js';
import { validatePlatformConfig } from '../validate/validate-platform-config.js';
import { buildPlatformConfig } from './build-platform-config.js';

const packageJson = { actorkit: { deployment: { image_repo: 'ghcr.io/actorkit/hello-actor' } } };

async function servedSchema(
  definition: typeof helloActor | Parameters<typeof createActorApp>[0]['definition'],
): Promise<unknown> {
  const app = createActorApp({ definition, store: new MemoryStore(), env: {}, logger: silentLogger });
  const response = await app.request('/settings/schema');
  expect(response.status).toBe(200);
  return response.json();
}

describe('GET /settings/schema and the emitted settings block', () => {
  it('are the same document for the example actor, and its configuration validates', async () => {
    const config = buildPlatformConfig({ definition: helloActor, packageJson });
    expect(config.settings).toEqual(await servedSchema(helloActor));
    expect(validatePlatformConfig(JSON.parse(JSON.stringify(config)))).toEqual({ valid: true, problems: [] });
  });

  it('follow the same valibot schema when it changes', async () => {
    const settings = v.object({
      ...helloActor.settings.entries,
      units: v.optional(
        v.pipe(v.picklist(['metric', 'imperial']), platformField('behaviour', { widget: 'radio', order: 3 })),
        'metric',
      ),
    });
    const definition = { ...helloActor, settings };
    const emitted = buildPlatformConfig({ definition, packageJson }).settings;
    expect(emitted.properties).toHaveProperty('units');
    expect(emitted).toEqual(await servedSchema(definition));
  });
});
