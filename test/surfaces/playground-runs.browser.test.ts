// Issue #37: the playground and runs, in chromium, behind an API key. A reload mid-answer picks
// the run's stream up after the last part drawn and finishes the same reply; Stop cancels the
// run itself (`POST /agent/runs/{id}/cancel`), which the page and `GET /agent/runs/{id}` both say.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestActor } from '../../src/testing/create-test-actor.js';
import { chromiumMissing, openPlayground, type OpenPlayground } from './playground-in-chromium.js';
import { answerOf, slowChatHandler } from './slow-chat-handler.js';

const API_KEY = 'k-runs-playground';
const WORDS = [
  'A',
  'run',
  'keeps',
  'going',
  'while',
  'the',
  'page',
  'reloads,',
  'then',
  'the',
  'page',
  'catches',
  'up.',
];
const ANSWER = answerOf(WORDS);

/** The text of the last assistant reply on the page, its text parts joined. */
const lastReplyText = (page: Page) =>
  page
    .locator('#messages article[data-role="assistant"]')
    .last()
    .locator('.text')
    .evaluateAll((parts) => parts.map((part) => part.textContent).join(''));

/** Waits until the last assistant reply on the page has more than `words` words. */
const replyPast = (page: Page, words: number) =>
  page.waitForFunction((count) => {
    const replies = document.querySelectorAll('#messages article[data-role="assistant"]');
    return (replies[replies.length - 1]?.textContent ?? '').trim().split(/\s+/).length > count;
  }, words);

/** Waits until the last assistant reply on the page reads `answer`, exactly. */
const lastReplyBecomes = (page: Page, answer: string) =>
  page.waitForFunction(
    (expected) => {
      const replies = document.querySelectorAll('#messages article[data-role="assistant"]');
      const last = replies[replies.length - 1];
      return [...(last?.querySelectorAll('.text') ?? [])].map((part) => part.textContent).join('') === expected;
    },
    answer,
    { timeout: 15_000 },
  );

async function send(page: Page, text: string) {
  await page.locator('#message').fill(text);
  await page.locator('#message').press('Enter');
}

describe.skipIf(chromiumMissing)('the playground follows runs in chromium', () => {
  let playground: OpenPlayground;
  let page: Page;
  let origin: string;

  beforeAll(async () => {
    const app = await createTestActor({
      chatHandler: slowChatHandler(WORDS, 200),
      env: { PLAYGROUND_ENABLED: 'true', API_KEY_ENABLED: 'true', API_KEY },
    });
    playground = await openPlayground(app, 'body[data-loaded="true"]');
    page = playground.page;
    origin = new URL(page.url()).origin;
    await page.locator('#api-key').fill(API_KEY);
    await page.locator('#api-key').press('Tab');
    await page.locator('#save-settings').waitFor();
  }, 60_000);

  afterAll(async () => {
    await playground?.close();
  });

  it('a reload mid-answer resumes the run after the last part drawn, and the answer completes on the page', async () => {
    const resumes: string[] = [];
    page.on('request', (request) => {
      if (/\/agent\/runs\/[^/]+\/stream/.test(request.url())) resumes.push(request.url());
    });
    await send(page, 'Tell me about runs');
    await replyPast(page, 3);
    expect((await lastReplyText(page)).length).toBeLessThan(ANSWER.length);

    await page.reload();
    await page.locator('body[data-loaded="true"]').waitFor();
    await lastReplyBecomes(page, ANSWER);
    await page.locator('#stop').waitFor({ state: 'hidden' });
    expect(await lastReplyText(page)).toBe(ANSWER);
    expect(
      await page.locator('#messages article').evaluateAll((articles) => articles.map((node) => node.dataset.role)),
    ).toEqual(['user', 'assistant']);
    expect(resumes).toHaveLength(1);
    expect(resumes[0]).toMatch(/\/agent\/runs\/inv_[^/]+\/stream\?after=[1-9]\d*$/);
    expect(await page.locator('#banner').isHidden()).toBe(true);
    expect(await page.locator('#send').isDisabled()).toBe(false);
    // Nothing is left to resume: a second reload draws the transcript and asks for no stream.
    await page.reload();
    await page.locator('body[data-loaded="true"]').waitFor();
    expect(await lastReplyText(page)).toBe(ANSWER);
    expect(resumes).toHaveLength(1);
  });

  it('a reload before the first part arrived resumes the chat’s run through GET /agent/invoke/{session}/stream', async () => {
    // The invoke reaches the actor, but its answer is held back from the page: as if the page
    // were reloaded before the first part (and the run id) came.
    const held: Promise<unknown>[] = [];
    await page.route(
      '**/agent/invoke',
      (route) => {
        held.push(route.fetch().catch(() => undefined));
      },
      { times: 1 },
    );
    await send(page, 'Answer while I am away');
    const sessionId = await page.evaluate(
      () => JSON.parse(localStorage.getItem('actorkit.playground') ?? '{}').current as string,
    );
    const inProgress = async () => {
      const probe = new AbortController();
      const response = await fetch(`${origin}/agent/invoke/${sessionId}/stream`, {
        headers: { 'X-API-Key': API_KEY },
        signal: probe.signal,
      });
      probe.abort();
      return response.status === 200;
    };
    await expect.poll(inProgress, { timeout: 5_000 }).toBe(true);
    const resumes: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith(`/agent/invoke/${sessionId}/stream`)) resumes.push(request.url());
    });

    await page.reload();
    await page.locator('body[data-loaded="true"]').waitFor();
    await lastReplyBecomes(page, ANSWER);
    await page.locator('#stop').waitFor({ state: 'hidden' });
    expect(resumes).toHaveLength(1);
    expect(
      await page.locator('#messages article').evaluateAll((articles) => articles.map((node) => node.dataset.role)),
    ).toEqual(['user', 'assistant', 'user', 'assistant']);
    await Promise.all(held);
  });

  it('Stop cancels the run in progress: the page says so and the run is cancelled', async () => {
    await send(page, 'Another long answer, please');
    await replyPast(page, 2);
    const cancel = page.waitForRequest((request) => request.method() === 'POST' && request.url().endsWith('/cancel'));
    await page.locator('#stop').click();
    const runId = /\/agent\/runs\/([^/]+)\/cancel$/.exec((await cancel).url())?.[1];
    expect(runId).toMatch(/^inv_/);

    const cancelled = page.locator('#messages article[data-role="assistant"][data-run-state="cancelled"]');
    await cancelled.waitFor();
    expect(await cancelled.count()).toBe(1);
    expect(await cancelled.locator('.run-state').textContent()).toContain('Cancelled');
    await page.locator('#stop').waitFor({ state: 'hidden' });
    expect((await lastReplyText(page)).length).toBeLessThan(ANSWER.length);
    expect(await page.locator('#banner').isHidden()).toBe(true);

    const run = await fetch(`${origin}/agent/runs/${runId}`, { headers: { 'X-API-Key': API_KEY } });
    expect(run.status).toBe(200);
    expect(await run.json()).toMatchObject({ id: runId, state: 'cancelled' });
    expect((await fetch(`${origin}/agent/runs/${runId}`)).status).toBe(401);
  });
});
