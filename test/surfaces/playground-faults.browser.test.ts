// The playground in chromium against an actor behind an API key (issue #29 item 9): the 401
// notices go as soon as a valid key is entered, long tool output stays readable inside its box,
// and the settings form shows the values the actor runs with (secrets masked).
import type { Page } from 'playwright-core';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActorTool } from '../../src/agent/actor-tool.js';
import { createOfflineModel } from '../../src/agent/providers/offline.js';
import { createActorApp } from '../../src/app/create-actor-app.js';
import { defaultActorFeatures, type ActorDefinition } from '../../src/core/actor-definition.js';
import { silentLogger } from '../../src/log/logger.js';
import { platformField } from '../../src/sdk/index.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { chromiumMissing, openPlayground, type OpenPlayground } from './playground-in-chromium.js';

const API_KEY = 'k-playground-123';
const LONG_OUTPUT = `${'0123456789abcdef'.repeat(200)}END-OF-OUTPUT`;

const definition: ActorDefinition = {
  metadata: {
    name: 'Key Actor',
    slug: 'key-actor',
    version: '1.0.0',
    description: 'Behind an API key',
    domain: 'keys',
    tags: [],
  },
  features: defaultActorFeatures,
  settings: v.object({
    llm_model: v.optional(
      v.pipe(v.string(), v.title('Model'), platformField('model', { order: 1, placeholder: 'gpt-4o-mini' })),
      '',
    ),
    llm_base_url: v.optional(
      v.pipe(
        v.string(),
        v.title('Base URL'),
        platformField('model', { widget: 'url', order: 2, placeholder: 'https://api.example.com/v1' }),
      ),
      '',
    ),
    llm_api_key: v.optional(
      v.pipe(v.string(), v.title('API key'), platformField('model', { widget: 'password', order: 3, secret: true })),
    ),
  }),
  sections: [{ id: 'model', title: 'Model' }],
};

const longTool = new ActorTool({
  name: 'long_output',
  description: 'Answers one very long line',
  argsSchema: v.object({}),
  run: () => LONG_OUTPUT,
});

describe.skipIf(chromiumMissing)('the playground behind an API key in chromium', () => {
  let playground: OpenPlayground;
  let page: Page;

  beforeAll(async () => {
    const env = {
      PLAYGROUND_ENABLED: 'true',
      API_KEY_ENABLED: 'true',
      API_KEY,
      LLM_MODEL: 'my-model',
      LLM_BASE_URL: 'http://127.0.0.1:9/v1',
      LLM_API_KEY: 'sk-hidden-value',
    };
    playground = await openPlayground(
      createActorApp({
        definition,
        env,
        store: new MemoryStore(),
        logger: silentLogger,
        model: createOfflineModel(),
        tools: [longTool],
      }),
      'body[data-loaded="true"]',
    );
    page = playground.page;
  }, 60_000);

  afterAll(async () => {
    await playground?.close();
  });

  /** Every notice on the page that still speaks of a 401 (the transcript keeps its history). */
  const notices401 = () =>
    page.evaluate(() =>
      ['#banner', '#settings-status', '#stats'].filter((selector) =>
        (document.querySelector(selector)?.textContent ?? '').includes('401'),
      ),
    );

  it('asks nothing that needs the key before it is entered: no 401 on a first visit, it says what to do', async () => {
    await page.locator('#settings-status:has-text("Enter the API key")').waitFor();
    await page.locator('#stats:has-text("Enter the API key")').waitFor();
    // Past one poll of the live state (every 3 s): still only the open /ready was asked.
    await page.waitForTimeout(3_500);
    const asked = await page.evaluate(() =>
      performance.getEntriesByType('resource').map((entry) => new URL(entry.name).pathname),
    );
    expect(asked.filter((path) => path !== '/ready')).toEqual([]);
    expect(await notices401()).toEqual([]);
  });

  it('drops every 401 notice once a valid key is entered, without a reload', async () => {
    await page.locator('#message').fill('hello');
    await page.locator('#message').press('Enter');
    await page.locator('#banner:has-text("401")').waitFor();
    await page.locator('#api-key').fill(API_KEY);
    await page.locator('#api-key').press('Tab');
    await page.locator('#save-settings').waitFor();
    await page.locator('#stats [data-stat="invocations"]').waitFor();
    expect(await notices401()).toEqual([]);
    expect(await page.locator('#banner').isHidden()).toBe(true);
  });

  it('shows the settings the actor runs with, not placeholders; a secret stays masked', async () => {
    expect(await page.locator('#setting-llm_model').inputValue()).toBe('my-model');
    expect(await page.locator('#setting-llm_base_url').inputValue()).toBe('http://127.0.0.1:9/v1');
    expect(await page.locator('#setting-llm_api_key').inputValue()).toBe('');
    expect(await page.content()).not.toContain('sk-hidden-value');
  });

  it('wraps a long tool output inside its box, so all of it can be read', async () => {
    await page.locator('#message').fill('use tool long_output');
    await page.locator('#message').press('Enter');
    const output = page.locator('.tool[data-tool="long_output"][data-status="done"] .tool-output');
    await output.waitFor();
    const box = await output.evaluate((pre) => {
      const messages = (document.getElementById('messages') as HTMLElement).getBoundingClientRect();
      const rect = pre.getBoundingClientRect();
      return {
        scrollWidth: pre.scrollWidth,
        clientWidth: pre.clientWidth,
        right: rect.right,
        messagesRight: messages.right,
        text: pre.textContent ?? '',
      };
    });
    expect(box.text.replace(/\s/g, '')).toBe(LONG_OUTPUT);
    expect(box.scrollWidth).toBeLessThanOrEqual(box.clientWidth);
    expect(box.right).toBeLessThanOrEqual(box.messagesRight);
  });
});
