// The playground's settings form in chromium, against an actor whose settings use the
// x-platform-widget, -section, -order and -show-if hints: the form follows them, saves through
// PUT /settings, and shows a 422 at its field.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActorApp } from '../../src/app/create-actor-app.js';
import { defaultActorFeatures, type ActorDefinition } from '../../src/core/actor-definition.js';
import { silentLogger } from '../../src/log/logger.js';
import { platformField } from '../../src/sdk/index.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { chromiumMissing, openPlayground, type OpenPlayground } from './playground-in-chromium.js';

const screenshots = fileURLToPath(new URL('../../test-results/', import.meta.url));

const definition: ActorDefinition = {
  metadata: {
    name: 'Form Actor',
    slug: 'form-actor',
    version: '1.0.0',
    description: 'Settings of every kind',
    domain: 'form',
    tags: [],
  },
  features: defaultActorFeatures,
  settings: v.object({
    notes: v.optional(
      v.pipe(
        v.string(),
        v.title('Notes'),
        platformField('general', { widget: 'textarea', order: 4, showIf: { field: 'enabled', equals: true } }),
      ),
      '',
    ),
    mode: v.optional(
      v.pipe(
        v.picklist(['basic', 'expert']),
        v.title('Mode'),
        platformField('general', {
          widget: 'select',
          order: 1,
          options: [
            { value: 'basic', label: 'Basic' },
            { value: 'expert', label: 'Expert' },
          ],
        }),
      ),
      'basic',
    ),
    level: v.optional(
      v.pipe(
        v.number(),
        v.integer(),
        v.minValue(1),
        v.maxValue(10),
        v.title('Level'),
        platformField('general', { widget: 'slider', order: 2, step: 1, showIf: { field: 'mode', equals: 'expert' } }),
      ),
      3,
    ),
    enabled: v.optional(
      v.pipe(v.boolean(), v.title('Enabled'), platformField('general', { widget: 'switch', order: 3 })),
      false,
    ),
    labels: v.optional(
      v.pipe(v.array(v.string()), v.title('Labels'), platformField('general', { widget: 'tags', order: 5 })),
      [],
    ),
    retries: v.optional(
      v.pipe(
        v.number(),
        v.integer(),
        v.minValue(0),
        v.maxValue(5),
        v.title('Retries'),
        platformField('advanced', { widget: 'number', order: 1 }),
      ),
      1,
    ),
    token: v.optional(
      v.pipe(v.string(), v.title('Token'), platformField('advanced', { widget: 'password', order: 2, secret: true })),
    ),
  }),
  sections: [
    { id: 'general', title: 'General' },
    { id: 'advanced', title: 'Advanced' },
  ],
};

describe.skipIf(chromiumMissing)('the playground settings form in chromium', () => {
  let playground: OpenPlayground;
  let page: Page;

  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    playground = await openPlayground(
      createActorApp({
        definition,
        env: { PLAYGROUND_ENABLED: 'true' },
        store: new MemoryStore(),
        logger: silentLogger,
      }),
      '#save-settings',
    );
    page = playground.page;
  }, 60_000);

  afterAll(async () => {
    await playground?.close();
  });

  const row = (key: string) => page.locator(`.field[data-key="${key}"]`);

  it('offers no "Save as eval case" outside actorkit dev (the app answers its route 404)', async () => {
    await page.locator('body[data-loaded="true"]').waitFor();
    expect(await page.locator('#save-eval-case, #eval-case-form').count()).toBe(0);
  });

  it('groups the fields by section, orders them by x-platform-order, and picks the widget', async () => {
    expect(
      await page
        .locator('fieldset[data-section="general"] .field')
        .evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.key)),
    ).toEqual(['mode', 'level', 'enabled', 'notes', 'labels']);
    expect(
      await page
        .locator('fieldset[data-section="advanced"] .field')
        .evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.key)),
    ).toEqual(['retries', 'token']);
    expect(await page.locator('#setting-mode').evaluate((node) => node.tagName)).toBe('SELECT');
    expect(await page.locator('#setting-level').getAttribute('type')).toBe('range');
    expect(await page.locator('#setting-enabled').getAttribute('type')).toBe('checkbox');
    expect(await page.locator('#setting-notes').evaluate((node) => node.tagName)).toBe('TEXTAREA');
    expect(await page.locator('#setting-token').getAttribute('type')).toBe('password');
  });

  it('shows a field only while its x-platform-show-if holds', async () => {
    expect(await row('level').isHidden()).toBe(true);
    expect(await row('notes').isHidden()).toBe(true);
    await page.locator('#setting-mode').selectOption({ label: 'Expert' });
    await page.locator('#setting-enabled').check();
    expect(await row('level').isVisible()).toBe(true);
    expect(await row('notes').isVisible()).toBe(true);
  });

  it('saves the changed fields through PUT /settings', async () => {
    await page.locator('#setting-level').fill('7');
    expect(await page.locator('#setting-level-value').textContent()).toBe('7');
    await page.locator('#setting-labels').fill('red, green');
    await page.locator('#setting-token').fill('t0ken');
    await page.locator('#save-settings').click();
    await page.locator('#settings-status[data-state="saved"]').waitFor();
    expect(await page.locator('#settings-status').textContent()).toMatch(/^Saved\. Applied: /);
    const settings = await page.evaluate(async () =>
      (await fetch('/settings', { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: '{}' })).json(),
    );
    expect(settings.settings).toMatchObject({
      mode: 'expert',
      level: 7,
      enabled: true,
      labels: ['red', 'green'],
      token: '********',
    });
    await page.screenshot({ path: `${screenshots}playground-settings-saved.png`, fullPage: true });
  });

  it('shows a 422 at its field and changes nothing', async () => {
    await page.locator('#setting-retries').fill('9');
    await page.locator('#save-settings').click();
    await page.locator('.field-error[data-for="retries"]:not(:empty)').waitFor();
    expect(await page.locator('#setting-retries').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#settings-status').getAttribute('data-state')).toBe('failed');
    await page.screenshot({ path: `${screenshots}playground-settings-422.png`, fullPage: true });
  });
});
