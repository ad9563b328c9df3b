// Issue 38: `useChat` from `@ai-sdk/react`, in chromium, against a served actor whose tool
// `mail_send` needs a person's approval. The model calls it twice; the page, written as the AI
// SDK docs show it (`addToolApprovalResponse` on each call in state `approval-requested`,
// `sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses`), approves one
// call and denies the other, with no glue for the actor. Screenshots before and after the answers.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServeHandle } from '../../src/adapter/node/index.js';
import { chromiumMissing } from '../surfaces/playground-in-chromium.js';
import { completion, fakeOpenAIForThisFile } from './fake-openai-server.js';
import { mailCall, sent, serveMailSendActor } from './fixtures/mail-send-tool.js';
import { CHAT_STATUS_AND_FORM, openUseChatPage } from './use-chat-page.js';

const screenshots = fileURLToPath(new URL('../../test-results/', import.meta.url));
const FINAL_TEXT = 'Mailed Ada; the mail to Bob was denied.';

// The page, as an app would write it with the AI SDK docs at hand. The actor's tools are
// dynamic (the server knows them, the page's types do not), so their parts are `dynamic-tool`.
const PAGE_SOURCE = `
import { createElement as h, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses } from 'ai';

function ToolCall({ part, addToolApprovalResponse }) {
  return h('div', { className: 'tool', 'data-tool-call-id': part.toolCallId, 'data-state': part.state },
    h('p', null, part.toolName + ' to ' + part.input?.to + ': ' + part.state),
    part.state === 'approval-requested'
      ? h('p', null,
          h('button', { className: 'approve', onClick: () => addToolApprovalResponse({ id: part.approval.id, approved: true }) }, 'Approve'),
          h('button', { className: 'deny', onClick: () => addToolApprovalResponse({ id: part.approval.id, approved: false, reason: 'Not Bob' }) }, 'Deny'))
      : null,
    part.state === 'output-available' ? h('pre', { className: 'output' }, JSON.stringify(part.output)) : null);
}

function App() {
  const { messages, sendMessage, status, error, addToolApprovalResponse } = useChat({
    transport: new DefaultChatTransport({ api: '/agent/invoke' }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const [input, setInput] = useState('');
  return h('main', null,
    h('ol', { id: 'messages' }, messages.map((message) =>
      h('li', { key: message.id, 'data-role': message.role },
        message.parts.map((part, index) =>
          part.type === 'text'
            ? h('p', { key: index, className: 'text' }, part.text)
            : part.type === 'dynamic-tool' || part.type.startsWith('tool-')
              ? h(ToolCall, { key: part.toolCallId, part, addToolApprovalResponse })
              : null)))),
    ${CHAT_STATUS_AND_FORM});
}

createRoot(document.getElementById('root')).render(h(App));
`;

const model = await fakeOpenAIForThisFile();

/** The tool parts the page shows, as `[toolCallId, state]`. */
const toolStates = (page: Page) =>
  page
    .locator('.tool')
    .evaluateAll((parts) => parts.map((part) => [part.getAttribute('data-tool-call-id'), part.dataset.state]));

describe.skipIf(chromiumMissing)("useChat's addToolApprovalResponse in chromium, against a needsApproval tool", () => {
  let server: ServeHandle;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    server = await serveMailSendActor(model.baseUrl);
    ({ browser, page } = await openUseChatPage(server.url, PAGE_SOURCE, 'useChat approvals'));
    mkdirSync(screenshots, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('approves one call and denies the other: output-available, output-denied, the final text; the tool ran once', async () => {
    sent.length = 0;
    model.reply(
      {
        kind: 'json',
        body: completion(null, { toolCalls: [mailCall('call_ada', 'ada@x'), mailCall('call_bob', 'bob@x')] }),
      },
      { kind: 'json', body: completion(FINAL_TEXT) },
    );
    const invokes: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url() === `${server.url}/agent/invoke`) invokes.push(request.url());
    });
    await page.goto(`${server.url}/chat-app.html`);
    await page.locator('#status[data-status="ready"]').waitFor();
    await page.locator('#input').fill('Mail Ada and Bob');
    await page.locator('#send').click();

    await page.locator('.tool[data-state="approval-requested"]').nth(1).waitFor();
    await page.locator('#status[data-status="ready"]').waitFor();
    expect(await toolStates(page)).toEqual([
      ['call_ada', 'approval-requested'],
      ['call_bob', 'approval-requested'],
    ]);
    expect(sent).toEqual([]);
    await page.screenshot({ path: `${screenshots}use-chat-approvals-requested.png`, fullPage: true });

    await page.locator('.tool[data-tool-call-id="call_ada"] .approve').click();
    // One answer of two: nothing is sent yet.
    await page.locator('.tool[data-tool-call-id="call_ada"][data-state="approval-responded"]').waitFor();
    expect(invokes).toHaveLength(1);
    await page.locator('.tool[data-tool-call-id="call_bob"] .deny').click();

    await page.locator('li[data-role="assistant"] .text', { hasText: FINAL_TEXT }).waitFor({ timeout: 15_000 });
    await page.locator('#status[data-status="ready"]').waitFor();
    await page.screenshot({ path: `${screenshots}use-chat-approvals-answered.png`, fullPage: true });

    expect(await page.locator('#error').count()).toBe(0);
    expect(invokes).toHaveLength(2);
    expect(await page.locator('#messages > li').evaluateAll((items) => items.map((item) => item.dataset.role))).toEqual(
      ['user', 'assistant'],
    );
    expect(await toolStates(page)).toEqual([
      ['call_ada', 'output-available'],
      ['call_bob', 'output-denied'],
    ]);
    expect(await page.locator('.tool[data-tool-call-id="call_ada"] .output').textContent()).toBe('{"sent":"ada@x"}');
    expect(await page.locator('li[data-role="assistant"] .text').allTextContents()).toEqual([FINAL_TEXT]);
    expect(sent).toEqual(['ada@x']);
    expect(model.requests.at(-1)!.body.messages.at(-1)).toMatchObject({
      role: 'tool',
      tool_call_id: 'call_bob',
      content: expect.stringContaining('Not Bob'),
    });
  });
});
