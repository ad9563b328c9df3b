// Issue #38: tools that need a person's approval, in the playground, in chromium. The stream's
// tool-approval-request shows the call with Approve and Deny; a reload while the run waits shows
// the calls again (read from GET /agent/runs/{id}); one approved and one denied call go back as
// one streamed invoke, and the same run goes on in the same assistant message. Saves
// test-results/playground-approvals-waiting.png and test-results/playground-approvals-answered.png.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestActor } from '../../src/testing/create-test-actor.js';
import { completion, fakeOpenAIForThisFile } from '../agent/fake-openai-server.js';
import { fakeModelEnv } from '../agent/fixtures/fake-model-env.js';
import { mailCall, sendEmail, sent } from '../agent/fixtures/mail-send-tool.js';
import { chromiumMissing, openPlayground, type OpenPlayground } from './playground-in-chromium.js';

const screenshots = fileURLToPath(new URL('../../test-results/', import.meta.url));

const server = await fakeOpenAIForThisFile();

/** The approval box of the call to `to` on the page. */
const approvalOf = (page: Page, to: string) =>
  page.locator('#messages details.tool', { hasText: `"to": "${to}"` }).locator('.approval');

describe.skipIf(chromiumMissing)('the playground asks a person about tool calls, in chromium', () => {
  let playground: OpenPlayground;
  let page: Page;

  beforeAll(async () => {
    const app = await createTestActor({
      env: { PLAYGROUND_ENABLED: 'true', ...fakeModelEnv(server.baseUrl) },
      tools: [sendEmail],
    });
    playground = await openPlayground(app, 'body[data-loaded="true"]');
    page = playground.page;
  }, 60_000);

  afterAll(async () => {
    await playground?.close();
  });

  it('shows each waiting call with Approve and Deny, again after a reload; one approved and one denied, the run answers in the same message', async () => {
    sent.length = 0;
    server.reply(
      {
        kind: 'json',
        body: completion(null, { toolCalls: [mailCall('call_a', 'ada@x'), mailCall('call_b', 'bob@x')] }),
      },
      { kind: 'json', body: completion('Sent to Ada; Bob was refused.') },
    );
    await page.locator('#message').fill('Mail Ada and Bob');
    await page.locator('#message').press('Enter');
    await approvalOf(page, 'bob@x').locator('button.approve').waitFor();
    await page.locator('#send:not([disabled])').waitFor();
    const tools = page.locator('#messages article[data-role="assistant"] details.tool');
    expect(await tools.evaluateAll((nodes) => nodes.map((node) => [node.dataset.tool, node.dataset.status]))).toEqual([
      ['mail_send', 'awaiting approval'],
      ['mail_send', 'awaiting approval'],
    ]);
    expect(JSON.parse((await tools.first().locator('.tool-args').textContent()) ?? '')).toEqual({
      to: 'ada@x',
      body: 'hi',
    });
    expect(await approvalOf(page, 'ada@x').locator('strong').textContent()).toBe('Needs your approval: mail_send');

    // A new message is held back while calls wait: the page says why, and nothing is sent.
    await page.locator('#message').fill('Never mind');
    await page.locator('#message').press('Enter');
    expect(await page.locator('#banner').textContent()).toContain('Tool calls wait for your answer');
    expect(await page.locator('#messages article').count()).toBe(2);
    await page.locator('#message').fill('');

    // A reload while the run waits asks the run what it waits for and shows the calls again.
    const runReads: string[] = [];
    page.on('request', (request) => {
      if (/\/agent\/runs\/inv_[^/]+$/.test(new URL(request.url()).pathname)) runReads.push(request.url());
    });
    await page.reload();
    await page.locator('body[data-loaded="true"]').waitFor();
    await expect.poll(() => runReads.length).toBe(1);
    await approvalOf(page, 'ada@x').locator('button.approve').waitFor();
    expect(await page.locator('#messages .approval button.approve').count()).toBe(2);
    mkdirSync(screenshots, { recursive: true });
    await page.screenshot({ path: `${screenshots}playground-approvals-waiting.png`, fullPage: true });
    expect(sent).toEqual([]);

    const answers = page.waitForRequest(
      (request) => request.method() === 'POST' && request.url().endsWith('/agent/invoke'),
    );
    await approvalOf(page, 'ada@x').locator('button.approve').click();
    expect(await approvalOf(page, 'ada@x').getAttribute('data-decision')).toBe('approved');
    await approvalOf(page, 'bob@x').locator('button.deny').click();
    await approvalOf(page, 'bob@x').locator('.deny-reason').fill('not Bob');
    await approvalOf(page, 'bob@x').locator('button.deny-confirm').click();
    const body = (await answers).postDataJSON() as { approvals: unknown[]; stream: boolean; message?: string };
    expect(body).toMatchObject({
      stream: true,
      approvals: [
        { id: expect.stringMatching(/^apr_/), approved: true },
        { id: expect.stringMatching(/^apr_/), approved: false, reason: 'not Bob' },
      ],
    });
    expect(body.message).toBeUndefined();

    const reply = page.locator('#messages article[data-role="assistant"]');
    await reply.locator('.text', { hasText: 'Sent to Ada; Bob was refused.' }).waitFor();
    await page.locator('#send:not([disabled])').waitFor();
    expect(
      await page.locator('#messages article').evaluateAll((nodes) => nodes.map((node) => node.dataset.role)),
    ).toEqual(['user', 'assistant']);
    expect(await tools.evaluateAll((nodes) => nodes.map((node) => node.dataset.status))).toEqual(['done', 'denied']);
    expect(JSON.parse((await tools.first().locator('.tool-output').textContent()) ?? '')).toEqual({ sent: 'ada@x' });
    expect(await tools.last().locator('.tool-output, .tool-error').count()).toBe(0);
    expect(await approvalOf(page, 'bob@x').textContent()).toBe('Denied: not Bob');
    expect(await page.locator('#messages .approval button').count()).toBe(0);
    expect(await reply.locator('.text').allTextContents()).toEqual(['Sent to Ada; Bob was refused.']);
    await page.screenshot({ path: `${screenshots}playground-approvals-answered.png`, fullPage: true });

    // The tool ran once, for the approved call; the model was told of the denial and its reason.
    expect(sent).toEqual(['ada@x']);
    expect(server.requests.at(-1)?.body.messages.at(-1)).toMatchObject({
      role: 'tool',
      tool_call_id: 'call_b',
      content: JSON.stringify({ error: 'A person denied this tool call: not Bob', code: 'approval_denied' }),
    });
    expect(await page.locator('#banner').isHidden()).toBe(true);
  });

  it('a call answered elsewhere meanwhile: Approve shows the refusal, then the rest of the run in the same message', async () => {
    sent.length = 0;
    server.reply(
      { kind: 'json', body: completion(null, { toolCalls: [mailCall('call_c', 'cy@x')] }) },
      { kind: 'json', body: completion('Mailed Cy.') },
    );
    await page.locator('#new-session').click();
    await page.locator('#message').fill('Mail Cy');
    await page.locator('#message').press('Enter');
    const approve = approvalOf(page, 'cy@x').locator('button.approve');
    await approve.waitFor();
    await page.locator('#send:not([disabled])').waitFor();
    const origin = new URL(page.url()).origin;
    const approvalId = await approvalOf(page, 'cy@x').getAttribute('data-approval-id');
    const runId = await page.evaluate(() => {
      const saved = JSON.parse(localStorage.getItem('actorkit.playground') ?? '{}');
      const session = saved.sessions.find((candidate: { id: string }) => candidate.id === saved.current);
      return session.entries.at(-1).runId as string;
    });
    // The owner approves it first (as the approvals panel does); the run goes on by itself.
    const elsewhere = await fetch(`${origin}/agent/runs/${runId}/approvals/${approvalId}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ approved: true, decided_by: 'owner' }),
    });
    expect(elsewhere.status).toBe(200);

    await approve.click();
    const refusal = page.locator('#messages article[data-role="error"]').last();
    await refusal.waitFor();
    expect(await refusal.locator('.problem-title').textContent()).toBe('Approval already decided');
    const reply = page.locator('#messages article[data-role="assistant"]').last();
    await reply.locator('.text', { hasText: 'Mailed Cy.' }).waitFor();
    expect(await reply.locator('details.tool').getAttribute('data-status')).toBe('done');
    expect(await reply.locator('.approval button').count()).toBe(0);
    expect(
      await page.locator('#messages article').evaluateAll((nodes) => nodes.map((node) => node.dataset.role)),
    ).toEqual(['user', 'assistant', 'error']);
    expect(sent).toEqual(['cy@x']);
  });
});
