import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { ActorTool } from '../agent/actor-tool.js';
import type { ChatReply } from '../invoke/chat-reply.js';
import { createTestActor } from './create-test-actor.js';
import { approvals } from './script-approvals.js';

const sent: string[] = [];
/** Needs a person's approval for every call; the offline model calls it when asked `use tool mail_send with {…}`. */
const mailSend = new ActorTool({
  name: 'mail_send',
  description: 'Sends an email',
  argsSchema: v.object({ to: v.string() }),
  needsApproval: true,
  run: ({ to }) => {
    sent.push(to);
    return { sent: to };
  },
});

const app = await createTestActor({ tools: [mailSend] });
let sessions = 0;
/** Asks the offline model to mail `to`, in a session of its own: the run pauses for approval. */
async function mail(to: string): Promise<ChatReply> {
  sessions += 1;
  const response = await app.request('/agent/invoke', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      user_identifier: 'tester',
      session_id: `mail-${sessions}`,
      message: `use tool mail_send with {"to": "${to}"}`,
    }),
  });
  const paused = (await response.json()) as ChatReply;
  expect(paused).toMatchObject({ status: 'awaiting_input', approvals: [{ tool: 'mail_send', arguments: { to } }] });
  return paused;
}

describe('approvals (actorkit/testing): a test answers the calls a run waits for', () => {
  it('approveAll runs the tool and gives the final reply', async () => {
    sent.length = 0;
    const reply = await approvals.approveAll(app, await mail('ada@x'));
    expect(reply).toMatchObject({ status: 'completed', tool_calls: [{ name: 'mail_send', status: 'ok' }] });
    expect(reply.message.content).toContain('ada@x');
    expect(sent).toEqual(['ada@x']);
  });

  it('denyAll and denyNext tell the model the reason; the tool does not run', async () => {
    sent.length = 0;
    const denied = await approvals.denyAll(app, await mail('bob@x'), 'not Bob');
    expect(denied.status).toBe('completed');
    expect(denied.message.content).toContain('not Bob');
    const next = await approvals.denyNext(app, await mail('cy@x'));
    expect(next.message.content).toContain('approval_denied');
    expect(sent).toEqual([]);
  });

  it('decide answers each call as its function says', async () => {
    sent.length = 0;
    const reply = await approvals.decide(app, await mail('dee@x'), (call) => ({
      approved: (call.arguments as { to: string }).to.endsWith('@x'),
    }));
    expect(reply.status).toBe('completed');
    expect(sent).toEqual(['dee@x']);
  });

  it('throws for a reply that waits for nothing, and names the problem of answers the actor refuses', async () => {
    const paused = await mail('eve@x');
    await approvals.approveAll(app, paused);
    await expect(approvals.approveAll(app, { ...paused, status: 'completed' })).rejects.toThrow(
      /waits for no approval/,
    );
    await expect(approvals.approveAll(app, paused)).rejects.toThrow(/409 .*approval_already_decided/);
  });
});
