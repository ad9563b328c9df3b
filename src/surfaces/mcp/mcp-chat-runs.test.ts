import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { connectMcpClient } from '../../../test/contract/mcp-contract.js';
import { mcpActorsForThisFile } from '../../../test/surfaces/mcp-test-actor.js';
import type { ChatHandler } from '../../invoke/chat-handler.js';
import { slowChatHandler } from '../../../test/surfaces/slow-chat-handler.js';

const waitFor = async (check: () => Promise<boolean> | boolean, timeoutMs = 5_000) => {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

const serveActor = mcpActorsForThisFile();

const serveMcpActor = (handler: ChatHandler, env: Record<string, string> = {}) =>
  serveActor({ chatHandler: handler, env });

/** The run of a session in progress, by its stream's start part (`messageMetadata.run_id`). */
async function runInProgress(url: string, sessionId: string): Promise<{ id: string; stream: Promise<string> }> {
  let response = await fetch(`${url}/agent/invoke/${sessionId}/stream`);
  for (const until = Date.now() + 5_000; response.status === 204 && Date.now() < until; ) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    response = await fetch(`${url}/agent/invoke/${sessionId}/stream`);
  }
  expect(response.status).toBe(200);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  const readMore = async (): Promise<boolean> => {
    const chunk = await reader.read();
    if (!chunk.done) text += decoder.decode(chunk.value, { stream: true });
    return !chunk.done;
  };
  let id = /"run_id":"([^"]+)"/.exec(text)?.[1];
  while (id === undefined) {
    if (!(await readMore())) throw new Error(`the stream ended without a run id: ${text}`);
    id = /"run_id":"([^"]+)"/.exec(text)?.[1];
  }
  const rest = (async () => {
    while (await readMore());
    return text;
  })();
  return { id, stream: rest };
}

const runState = async (url: string, id: string) =>
  (await (await fetch(`${url}/agent/runs/${id}`)).json()) as { state: string; problem?: { code: string } };

describe('/mcp chat as a run', () => {
  it.each([
    ['continue', 'sends'],
    ['cancel', 'with RUN_ON_DISCONNECT=cancel still sends'],
  ])(
    'RUN_ON_DISCONNECT=%s: %s notifications/progress per text delta to a client that passes onprogress, then the reply',
    async (onDisconnect) => {
      const url = await serveMcpActor(slowChatHandler(['one', 'two', 'three'], 20), {
        RUN_ON_DISCONNECT: onDisconnect,
      });
      const client = await connectMcpClient(url);
      const progress: Progress[] = [];
      const result = await client.callTool(
        { name: 'chat', arguments: { message: 'count', session_id: 'mcp-progress' } },
        undefined,
        { onprogress: (update) => progress.push(update) },
      );
      expect(result.content).toEqual([{ type: 'text', text: 'one two three ' }]);
      expect(progress).toEqual([
        { progress: 4, message: 'one ' },
        { progress: 8, message: 'two ' },
        { progress: 14, message: 'three ' },
      ]);
      const { id } = result.structuredContent as { id: string };
      await waitFor(async () => (await runState(url, id)).state === 'completed');
      await client.close();
    },
  );

  it('answers as before, in JSON, to a call without a progressToken', async () => {
    const url = await serveMcpActor(slowChatHandler(['one', 'two'], 5));
    const client = await connectMcpClient(url);
    const result = await client.callTool({ name: 'chat', arguments: { message: 'count' } });
    expect(result.content).toEqual([{ type: 'text', text: 'one two ' }]);
    await client.close();
  });

  for (const withProgress of [false, true]) {
    it(`a client that aborts the call (notifications/cancelled) cancels the run and its model call${withProgress ? ', with progress' : ''}`, async () => {
      const handler = slowChatHandler(['one', 'two', 'three', 'four', 'five', 'six'], 150);
      const url = await serveMcpActor(handler);
      const client = await connectMcpClient(url);
      const abort = new AbortController();
      const progress: Progress[] = [];
      const call = client.callTool(
        { name: 'chat', arguments: { message: 'count slowly', session_id: 'mcp-cancel' } },
        undefined,
        { signal: abort.signal, ...(withProgress ? { onprogress: (update: Progress) => progress.push(update) } : {}) },
      );
      const settled = call.then(
        () => 'answered',
        () => 'rejected',
      );
      const run = await runInProgress(url, 'mcp-cancel');
      if (withProgress) await waitFor(() => progress.length > 0);
      abort.abort('the user pressed stop');
      expect(await settled).toBe('rejected');
      await waitFor(() => handler.aborted());
      expect(await run.stream).toContain('"run_state":"cancelled"');
      await waitFor(async () => (await runState(url, run.id)).state === 'cancelled');
      expect((await runState(url, run.id)).problem?.code).toBe('run_cancelled');
      if (withProgress) expect(progress.length).toBeLessThan(6);
      // No run of the session is left in progress, once the end is written.
      await waitFor(async () => (await fetch(`${url}/agent/invoke/mcp-cancel/stream`)).status === 204);
      await client.close();
    });
  }
});
