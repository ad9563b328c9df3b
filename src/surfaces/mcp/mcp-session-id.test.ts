import { describe, expect, it } from 'vitest';
import { SessionId } from '../../invoke/chat-request.js';
import * as v from 'valibot';
import { issueMcpSessionId, sessionElicits } from './mcp-session-id.js';

const initialize = (capabilities: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'c', version: '1' } },
});

describe('issueMcpSessionId', () => {
  it.each([
    [{ elicitation: {} }, true],
    [{ elicitation: { form: {} } }, true],
    [{ elicitation: { form: {}, url: {} } }, true],
    [{ elicitation: { url: {} } }, false],
    [{ sampling: {} }, false],
    [{}, false],
  ])(
    'capabilities %j: a session id that says elicits=%s, and that a chat session_id may be',
    (capabilities, elicits) => {
      const issued = issueMcpSessionId(initialize(capabilities));
      expect(sessionElicits(issued)).toBe(elicits);
      expect(v.is(SessionId, issued)).toBe(true);
      expect(issueMcpSessionId(initialize(capabilities))).not.toBe(issued);
    },
  );
});
