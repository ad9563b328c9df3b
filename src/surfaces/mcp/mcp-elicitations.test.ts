import { describe, expect, it } from 'vitest';
import { McpClientRequestFailed, McpElicitations, type McpOutgoingRequest } from './mcp-elicitations.js';

const scope = { tenantId: 'acme', sessionId: 'mcp-1' };

/** Asks once and returns the ask's promise and the request it sent. */
async function askOnce(elicitations: McpElicitations, signal = new AbortController().signal) {
  let request: McpOutgoingRequest | undefined;
  const answer = elicitations.ask(
    scope,
    async (sent) => {
      request = sent;
    },
    'elicitation/create',
    { message: 'Approve?' },
    signal,
  );
  await Promise.resolve();
  if (request === undefined) throw new Error('nothing was sent');
  return { answer, request };
}

describe('McpElicitations', () => {
  it('sends a request with an id of its own and resolves with the result the same tenant and session POST', async () => {
    const elicitations = new McpElicitations();
    const { answer, request } = await askOnce(elicitations);
    expect(request).toEqual({
      jsonrpc: '2.0',
      id: expect.stringMatching(/^elicit_/),
      method: 'elicitation/create',
      params: { message: 'Approve?' },
    });
    const result = { action: 'accept', content: { approved: true } };
    const other = { jsonrpc: '2.0', method: 'notifications/initialized' };
    // Another session's POST does not reach it; what nobody here waits for is left for the server.
    const foreign = { jsonrpc: '2.0', id: request.id, result };
    expect(elicitations.deliver({ tenantId: 'acme', sessionId: 'mcp-2' }, [foreign])).toEqual([foreign]);
    expect(elicitations.deliver({ tenantId: 'globex', sessionId: 'mcp-1' }, [foreign])).toEqual([foreign]);
    expect(elicitations.deliver(scope, [foreign, other])).toEqual([other]);
    expect(await answer).toEqual(result);
    expect(elicitations.size).toBe(0);
  });

  it("rejects with the client's JSON-RPC error, and with the call's abort reason", async () => {
    const elicitations = new McpElicitations();
    const failed = await askOnce(elicitations);
    elicitations.deliver(scope, [{ jsonrpc: '2.0', id: failed.request.id, error: { code: -32601, message: 'no' } }]);
    await expect(failed.answer).rejects.toThrow(McpClientRequestFailed);
    await expect(failed.answer).rejects.toThrow('The MCP client answered with an error: no');

    const abort = new AbortController();
    const aborted = await askOnce(elicitations, abort.signal);
    abort.abort(new Error('the client cancelled the call'));
    await expect(aborted.answer).rejects.toThrow('the client cancelled the call');
    expect(elicitations.size).toBe(0);
  });
});
