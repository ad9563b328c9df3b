// The wire of AI SDK 6's tool approvals, taken from the `ai` package's own client, as fixtures
// for the server's `needsApproval` tools:
// - fixtures/ai-sdk-approval-request-chunks.json: the UI message stream chunks that put two tool
//   calls in state `approval-requested` (one `tool-approval-request` chunk per call);
// - fixtures/ai-sdk-approval-response-body.json: the body `Chat` then POSTs once both calls
//   have an answer (`addToolApprovalResponse` + `lastAssistantMessageIsCompleteWithApprovalResponses`);
// - fixtures/ai-sdk-approval-continuation-chunks.json: what the server answers that body with,
//   in the order `streamText` uses (the denied and approved calls' outputs before the next step).
// Each fixture is fed to, or compared with, what the real client does, so none can drift from it.
import { readFileSync } from 'node:fs';
import {
  DefaultChatTransport,
  isToolUIPart,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
  type UIMessageChunk,
} from 'ai';
import { describe, expect, it, vi } from 'vitest';
import { UI_MESSAGE_STREAM_HEADERS } from '../../src/invoke/ui-message-stream.js';
import { PlainChat } from './plain-chat.js';
import { readUiStream } from './ui-stream-reader.js';

const fixture = <T>(name: string): T =>
  JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')) as T;

const APPROVAL_REQUEST_CHUNKS = fixture<UIMessageChunk[]>('ai-sdk-approval-request-chunks.json');
const APPROVAL_CONTINUATION_CHUNKS = fixture<UIMessageChunk[]>('ai-sdk-approval-continuation-chunks.json');
const APPROVAL_RESPONSE_BODY = fixture<Record<string, unknown>>('ai-sdk-approval-response-body.json');

/** The SSE text a server sends for these chunks, ended by `data: [DONE]`. */
const sseOf = (chunks: readonly UIMessageChunk[]) =>
  `${chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('')}data: [DONE]\n\n`;

const toolPartsOf = (message: UIMessage | undefined) => (message?.parts ?? []).filter(isToolUIPart);

describe("AI SDK 6's client reads the approval request chunks", () => {
  it('shows each tool call as a tool-<name> part in state approval-requested, with the approval id', async () => {
    const read = await readUiStream(sseOf(APPROVAL_REQUEST_CHUNKS));
    expect(read.errors).toEqual([]);
    expect(read.chunks).toEqual(APPROVAL_REQUEST_CHUNKS);
    expect(read.message?.id).toBe('msg-approval-1');
    expect(read.message?.parts).toEqual([
      { type: 'step-start' },
      {
        type: 'tool-files_delete',
        toolCallId: 'call-delete-1',
        state: 'approval-requested',
        input: { path: '/tmp/old.log' },
        approval: { id: 'approval-delete-1' },
      },
      {
        type: 'tool-mail_send',
        toolCallId: 'call-mail-1',
        state: 'approval-requested',
        input: { to: 'ada@example.com', subject: 'Lunch?' },
        approval: { id: 'approval-mail-1' },
      },
    ]);
  });

  it('builds a dynamic-tool part instead when tool-input-available says dynamic: true (as the server marks its tools today)', async () => {
    const dynamicChunks = APPROVAL_REQUEST_CHUNKS.map((chunk) =>
      chunk.type === 'tool-input-available' ? { ...chunk, dynamic: true } : chunk,
    );
    const read = await readUiStream(sseOf(dynamicChunks));
    expect(read.errors).toEqual([]);
    expect(toolPartsOf(read.message)).toEqual([
      expect.objectContaining({
        type: 'dynamic-tool',
        toolName: 'files_delete',
        toolCallId: 'call-delete-1',
        state: 'approval-requested',
        approval: { id: 'approval-delete-1' },
      }),
      expect.objectContaining({
        type: 'dynamic-tool',
        toolName: 'mail_send',
        toolCallId: 'call-mail-1',
        state: 'approval-requested',
        approval: { id: 'approval-mail-1' },
      }),
    ]);
  });

  it('refuses an approval request for a tool call the stream never opened', async () => {
    const orphan = APPROVAL_REQUEST_CHUNKS.filter(
      (chunk) => !(chunk.type === 'tool-input-available' && chunk.toolCallId === 'call-mail-1'),
    );
    const read = await readUiStream(sseOf(orphan));
    expect(read.errors).toEqual([expect.objectContaining({ message: expect.stringContaining('call-mail-1') })]);
  });
});

describe("AI SDK 6's Chat answers the approvals: approve one, deny the other with a reason", () => {
  it('POSTs the fixture body once both have an answer, and takes the continuation into the same message', async () => {
    const sentBodies: string[] = [];
    let generated = 0;
    const chat = new PlainChat({
      id: 'chat-approvals',
      generateId: () => `generated-${++generated}`,
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
      transport: new DefaultChatTransport({
        api: 'http://actor.test/agent/invoke',
        fetch: async (_url, init) => {
          sentBodies.push(String(init?.body));
          const chunks = sentBodies.length === 1 ? APPROVAL_REQUEST_CHUNKS : APPROVAL_CONTINUATION_CHUNKS;
          return new Response(sseOf(chunks), { headers: UI_MESSAGE_STREAM_HEADERS });
        },
      }),
    });

    await chat.sendMessage({ text: 'Tidy up and invite Ada' });
    expect(chat.error).toBeUndefined();
    expect(toolPartsOf(chat.messages[1]).map((part) => part.state)).toEqual([
      'approval-requested',
      'approval-requested',
    ]);

    await chat.addToolApprovalResponse({ id: 'approval-delete-1', approved: true });
    await chat.addToolApprovalResponse({ id: 'approval-mail-1', approved: false, reason: 'Not today' });
    await vi.waitFor(() => {
      expect(sentBodies).toHaveLength(2);
      expect(chat.status).toBe('ready');
    });

    const approvalBody = JSON.parse(sentBodies[1]!) as {
      id: string;
      trigger: string;
      messageId: string;
      messages: UIMessage[];
    };
    expect(approvalBody).toEqual(APPROVAL_RESPONSE_BODY);
    expect(Object.keys(approvalBody).sort()).toEqual(['id', 'messageId', 'messages', 'trigger']);
    expect(approvalBody).toMatchObject({
      id: 'chat-approvals',
      trigger: 'submit-message',
      messageId: 'msg-approval-1',
    });
    expect(approvalBody.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(toolPartsOf(approvalBody.messages[1])).toEqual([
      expect.objectContaining({
        type: 'tool-files_delete',
        toolCallId: 'call-delete-1',
        state: 'approval-responded',
        approval: { id: 'approval-delete-1', approved: true },
      }),
      expect.objectContaining({
        type: 'tool-mail_send',
        toolCallId: 'call-mail-1',
        state: 'approval-responded',
        approval: { id: 'approval-mail-1', approved: false, reason: 'Not today' },
      }),
    ]);

    expect(chat.error).toBeUndefined();
    expect(chat.messages.map((message) => message.id)).toEqual(['generated-1', 'msg-approval-1']);
    expect(toolPartsOf(chat.messages[1])).toEqual([
      expect.objectContaining({
        toolCallId: 'call-delete-1',
        state: 'output-available',
        output: 'Deleted /tmp/old.log',
        approval: { id: 'approval-delete-1', approved: true },
      }),
      expect.objectContaining({
        toolCallId: 'call-mail-1',
        state: 'output-denied',
        approval: { id: 'approval-mail-1', approved: false, reason: 'Not today' },
      }),
    ]);
    expect(chat.messages[1]!.parts.at(-1)).toEqual({
      type: 'text',
      text: 'Deleted the log; the mail was not sent.',
      state: 'done',
    });
  });

  it('sends nothing while one approval still waits for its answer', async () => {
    const sentBodies: string[] = [];
    const chat = new PlainChat({
      id: 'chat-half-approved',
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
      transport: new DefaultChatTransport({
        api: 'http://actor.test/agent/invoke',
        fetch: async (_url, init) => {
          sentBodies.push(String(init?.body));
          return new Response(sseOf(APPROVAL_REQUEST_CHUNKS), { headers: UI_MESSAGE_STREAM_HEADERS });
        },
      }),
    });
    await chat.sendMessage({ text: 'Tidy up and invite Ada' });
    await chat.addToolApprovalResponse({ id: 'approval-delete-1', approved: true });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(sentBodies).toHaveLength(1);
    expect(chat.status).toBe('ready');
    expect(toolPartsOf(chat.messages[1]).map((part) => part.state)).toEqual([
      'approval-responded',
      'approval-requested',
    ]);
  });
});
