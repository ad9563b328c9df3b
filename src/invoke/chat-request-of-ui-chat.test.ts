import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { createTestActor } from '../testing/create-test-actor.js';
import { chatRequestOfUiChat, UI_CHAT_USER } from './chat-request-of-ui-chat.js';
import { UiChatRequest } from './ui-chat-request.js';

const user = (...parts: Record<string, unknown>[]) => ({ id: 'm1', role: 'user', parts });
const text = (value: string) => ({ type: 'text', text: value });
const invoke = async (body: Record<string, unknown>) => {
  const app = await createTestActor();
  const response = await app.request('/agent/invoke', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return {
    response,
    body: response.headers.get('content-type')?.includes('json')
      ? ((await response.json()) as Record<string, unknown>)
      : await response.text(),
  };
};

describe("POST /agent/invoke with the AI SDK's chat body (issue #29 item 4)", () => {
  it('streams by default and reads the last message, the text parts joined by a line break; earlier messages are ignored', async () => {
    const { response, body } = await invoke({
      id: 'chat-1',
      trigger: 'submit-message',
      messages: [
        user(text('first turn')),
        { id: 'a1', role: 'assistant', parts: [{ type: 'step-start' }, text('an answer')] },
        user(text('one'), text('two')),
      ],
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    expect(body).toContain('"session_id":"chat-1"');
    expect(body).toContain('one');
    expect(body).not.toContain('first turn');
  });

  it('takes a data: URL that is not base64 and records the turn under the user the body names', async () => {
    const { response, body } = await invoke({
      id: 'chat-2',
      messages: [user(text('Read'), { type: 'file', mediaType: 'text/plain', url: 'data:text/plain,Buy%20milk.' })],
      user_identifier: 'alice',
      stream: false,
    });
    expect(response.status).toBe(200);
    expect(body).toMatchObject({
      session_id: 'chat-2',
      message: { content: expect.stringContaining('You attached 1 file: file-1 (text/plain).') },
    });
  });

  it.each([
    [
      'the last message is not the user’s',
      { id: 'c', messages: [user(text('hi')), { role: 'assistant', parts: [text('yo')] }] },
      '/messages/1/role',
      'must be "user"',
    ],
    [
      'a part the actor does not take',
      { id: 'c', messages: [user(text('hi'), { type: 'reasoning', text: 'x' })] },
      '/messages/0/parts/1/type',
      'must be a text or a file part',
    ],
    [
      'no text',
      { id: 'c', messages: [user({ type: 'file', mediaType: 'image/png', url: 'https://x.test/a.png' })] },
      '/messages/0/parts',
      'needs a text part',
    ],
    [
      'a blob: URL',
      {
        id: 'c',
        messages: [user(text('hi'), { type: 'file', mediaType: 'image/png', url: 'blob:http://localhost/1' })],
      },
      '/messages/0/parts/1/url',
      'an http(s) URL or a data: URL of the part',
    ],
    [
      'a text file by URL',
      { id: 'c', messages: [user(text('hi'), { type: 'file', mediaType: 'text/plain', url: 'https://x.test/a.txt' })] },
      '/messages/0/parts/1/url',
      'must come as data',
    ],
    ['a chat id the session rule refuses', { id: 'a b', messages: [user(text('hi'))] }, '/id', ''],
    ['no message at all', { id: 'c', messages: [] }, '/messages', 'at least one message'],
    [
      'an unknown top-level key',
      { id: 'c', messages: [user(text('hi'))], model: 'gpt' },
      '/model',
      'is not a known field',
    ],
  ])('answers 422 naming the field of the AI SDK body: %s', async (_case, sent, pointer, detail) => {
    const { response, body } = await invoke(sent);
    expect(response.status).toBe(422);
    expect(body).toMatchObject({
      code: 'validation_failed',
      errors: [expect.objectContaining({ pointer, detail: expect.stringContaining(detail) })],
    });
  });

  it('still reads a chat request as one, and a body with both message and messages as a chat request', async () => {
    expect(
      (await invoke({ user_identifier: 'u', session_id: 's', message: 'hi' })).response.headers.get('content-type'),
    ).toContain('application/json');
    const both = await invoke({ user_identifier: 'u', session_id: 's', message: 'hi', messages: [] });
    expect(both.body).toMatchObject({
      status: 422,
      errors: [{ pointer: '/messages', detail: 'is not a known field' }],
    });
  });

  it('records the turn under ai-sdk when the body names no user, and keeps the tenant of metadata', () => {
    const request = chatRequestOfUiChat(
      v.parse(UiChatRequest, { id: 'c', messages: [user(text('hi'))], metadata: { tenant_id: 'acme' } }),
    );
    expect(request).toEqual({
      user_identifier: UI_CHAT_USER,
      session_id: 'c',
      message: 'hi',
      role: 'user',
      metadata: { tenant_id: 'acme' },
      stream: true,
    });
    expect(UI_CHAT_USER).toBe('ai-sdk');
  });
});
