// Issue 38: AI SDK 6's own `Chat` (`useChat` outside React) against a served actor over real
// HTTP, with no glue: the model calls the `needsApproval` tool `mail_send` twice, the chat
// approves one call and denies the other with `addToolApprovalResponse`, and
// `lastAssistantMessageIsCompleteWithApprovalResponses` sends the answers back by itself.
import {
  DefaultChatTransport,
  isToolUIPart,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from 'ai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ServeHandle } from '../../src/adapter/node/index.js';
import { completion, fakeOpenAIForThisFile } from './fake-openai-server.js';
import { mailCall, sent, serveMailSendActor } from './fixtures/mail-send-tool.js';
import { PlainChat } from './plain-chat.js';
import { readUiStream } from './ui-stream-reader.js';

const model = await fakeOpenAIForThisFile();

const toolPartsOf = (message: UIMessage | undefined) => (message?.parts ?? []).filter(isToolUIPart);

describe("AI SDK 6's Chat approves one call of a served actor's needsApproval tool and denies the other", () => {
  let server: ServeHandle;

  beforeAll(async () => {
    server = await serveMailSendActor(model.baseUrl);
  });

  afterAll(() => server?.close());

  it('shows both calls approval-requested, then output-available and output-denied and the final text; the tool ran once', async () => {
    sent.length = 0;
    model.reply(
      {
        kind: 'json',
        body: completion(null, { toolCalls: [mailCall('call_ada', 'ada@x'), mailCall('call_bob', 'bob@x')] }),
      },
      { kind: 'json', body: completion('Mailed Ada; Bob was not mailed.') },
    );
    const posts: string[] = [];
    const chat = new PlainChat({
      id: 'approvals-over-http',
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
      transport: new DefaultChatTransport({
        api: `${server.url}/agent/invoke`,
        fetch: (url, init) => {
          posts.push(String(init?.body));
          return fetch(url, init);
        },
      }),
    });
    const toolParts = () => toolPartsOf(chat.messages.at(-1));

    await chat.sendMessage({ text: 'Mail Ada and Bob' });
    expect(chat.error).toBeUndefined();
    expect(chat.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(toolParts()).toEqual([
      expect.objectContaining({
        toolCallId: 'call_ada',
        state: 'approval-requested',
        input: { to: 'ada@x', body: 'hi' },
      }),
      expect.objectContaining({
        toolCallId: 'call_bob',
        state: 'approval-requested',
        input: { to: 'bob@x', body: 'hi' },
      }),
    ]);
    expect(sent).toEqual([]);

    const [ada, bob] = toolParts();
    await chat.addToolApprovalResponse({ id: ada!.approval!.id, approved: true });
    await chat.addToolApprovalResponse({ id: bob!.approval!.id, approved: false, reason: 'Not Bob' });
    await vi.waitFor(() => {
      expect(posts).toHaveLength(2);
      expect(chat.status).toBe('ready');
    });

    expect(chat.error).toBeUndefined();
    expect(chat.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(toolParts()).toEqual([
      expect.objectContaining({
        toolCallId: 'call_ada',
        state: 'output-available',
        output: { sent: 'ada@x' },
        approval: { id: ada!.approval!.id, approved: true },
      }),
      expect.objectContaining({
        toolCallId: 'call_bob',
        state: 'output-denied',
        approval: { id: bob!.approval!.id, approved: false, reason: 'Not Bob' },
      }),
    ]);
    expect(chat.messages[1]!.parts.filter((part) => part.type === 'text')).toEqual([
      { type: 'text', text: 'Mailed Ada; Bob was not mailed.', state: 'done' },
    ]);
    expect(sent).toEqual(['ada@x']);
    // The model heard of the denial, with the person's reason.
    expect(model.requests.at(-1)!.body.messages.at(-1)).toMatchObject({
      role: 'tool',
      tool_call_id: 'call_bob',
      content: expect.stringContaining('Not Bob'),
    });

    // The whole run, read again from its start (a client that reconnects), is that one message too.
    const runId = (chat.messages[1]!.metadata as { run_id: string }).run_id;
    const again = await readUiStream((await fetch(`${server.url}/agent/runs/${runId}/stream`)).body!);
    expect(again.errors).toEqual([]);
    expect(again.message?.id).toBe(chat.messages[1]!.id);
    expect(toolPartsOf(again.message).map((part) => [part.toolCallId, part.state])).toEqual([
      ['call_ada', 'output-available'],
      ['call_bob', 'output-denied'],
    ]);
    expect(again.text).toBe('Mailed Ada; Bob was not mailed.');
  });
});
