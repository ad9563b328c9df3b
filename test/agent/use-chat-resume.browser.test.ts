// Issue #37: `useChat({ resume: true })` from `@ai-sdk/react`, in chromium, against a running
// actor. The page is reloaded while the model is still answering; after the reload the same chat
// (same id, its messages restored from localStorage) gets the whole answer with no glue beyond
// `resume: true`: the AI SDK asks `GET /agent/invoke/{chat_id}/stream` and the run is still going.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServeHandle } from '../../src/adapter/node/index.js';
import { createTestActor } from '../../src/testing/create-test-actor.js';
import { serveOnLoopback } from '../surfaces/loopback.js';
import { chromiumMissing } from '../surfaces/playground-in-chromium.js';
import { answerOf, slowChatHandler } from '../surfaces/slow-chat-handler.js';
import { CHAT_STATUS_AND_FORM, openUseChatPage } from './use-chat-page.js';

const WORDS = ['The', 'run', 'outlives', 'the', 'page', 'that', 'started', 'it', 'and', 'comes', 'back', 'whole.'];
const ANSWER = answerOf(WORDS);
const CHAT_ID = 'chat-resume-1';

// The page, as an app would write it with the AI SDK docs at hand: `useChat` with an id, the
// chat's previous messages as `messages`, `resume: true`, and the transport pointed at the actor.
// It keeps the messages in localStorage: that is the app's business, not the resume's.
const PAGE_SOURCE = `
import { createElement as h, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport } from 'ai';

const chatId = new URL(location.href).searchParams.get('chat');
const key = 'chat:' + chatId;
const saved = JSON.parse(localStorage.getItem(key) || '[]');

function App() {
  const { messages, sendMessage, status, error } = useChat({
    id: chatId,
    messages: saved,
    resume: true,
    transport: new DefaultChatTransport({ api: '/agent/invoke' }),
  });
  const [input, setInput] = useState('');
  useEffect(() => { localStorage.setItem(key, JSON.stringify(messages)); }, [messages]);
  return h('main', null,
    h('ol', { id: 'messages' }, messages.map((message) =>
      h('li', { key: message.id, 'data-role': message.role },
        message.parts.filter((part) => part.type === 'text').map((part) => part.text).join('')))),
    ${CHAT_STATUS_AND_FORM});
}

createRoot(document.getElementById('root')).render(h(App));
`;

const assistantTexts = (page: Page) =>
  page.locator('#messages li[data-role="assistant"]').evaluateAll((items) => items.map((item) => item.textContent));

describe.skipIf(chromiumMissing)('useChat({ resume: true }) in chromium, the page reloaded mid-answer', () => {
  let server: ServeHandle;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    const app = await createTestActor({ chatHandler: slowChatHandler(WORDS, 200) });
    server = await serveOnLoopback(app);
    ({ browser, page } = await openUseChatPage(server.url, PAGE_SOURCE, 'useChat resume'));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('gets the complete answer after the reload, through the chat stream route', async () => {
    const resumes: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'GET' && request.url().includes('/agent/invoke/')) resumes.push(request.url());
    });
    await page.goto(`${server.url}/chat-app.html?chat=${CHAT_ID}`);
    await page.locator('#status[data-status="ready"]').waitFor();
    await page.locator('#input').fill('Tell me about runs');
    await page.locator('#send').click();
    await page.waitForFunction(
      () => (document.querySelector('#messages li[data-role="assistant"]')?.textContent ?? '').split(' ').length > 3,
    );
    const before = await assistantTexts(page);
    expect(before[0]!.length).toBeLessThan(ANSWER.length);
    // What the page saved holds the answer so far: the resume must replace it, not add to it.
    const savedRoles = () =>
      page.evaluate(
        (key) => JSON.parse(localStorage.getItem(key) ?? '[]').map((message: { role: string }) => message.role),
        `chat:${CHAT_ID}`,
      );
    await expect.poll(savedRoles).toEqual(['user', 'assistant']);

    await page.reload();
    await page.waitForFunction(
      (answer) => document.querySelector('#messages li[data-role="assistant"]:last-child')?.textContent === answer,
      ANSWER,
      { timeout: 15_000 },
    );
    await page.locator('#status[data-status="ready"]').waitFor();
    expect(await page.locator('#error').count()).toBe(0);
    expect(await page.locator('#messages li').evaluateAll((items) => items.map((item) => item.dataset.role))).toEqual([
      'user',
      'assistant',
    ]);
    expect(await assistantTexts(page)).toEqual([ANSWER]);
    expect(resumes).toContain(`${server.url}/agent/invoke/${CHAT_ID}/stream`);
  });
});
