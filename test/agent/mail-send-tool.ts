import * as v from 'valibot';
import { ActorTool } from '../../src/agent/actor-tool.js';

/** A `mail_send` tool whose every call waits for a person's approval, and the addresses it mailed so far. */
export interface MailSendTool {
  readonly tool: ActorTool;
  /** The `to` of each call that ran, in order. */
  readonly sent: string[];
}

/** A tool with side effects for the approval tests: every call must be approved by a person. */
export function mailSendTool(): MailSendTool {
  const sent: string[] = [];
  const tool = new ActorTool({
    name: 'mail_send',
    description: 'Sends an email',
    argsSchema: v.object({ to: v.string(), body: v.string() }),
    needsApproval: true,
    run: ({ to }) => {
      sent.push(to);
      return { sent: to };
    },
  });
  return { tool, sent };
}

/** A model's call of `mail_send` to `to`, as the fake OpenAI server scripts it. */
export const mailCall = (id: string, to: string) => ({
  id,
  name: 'mail_send',
  arguments: JSON.stringify({ to, body: 'hi' }),
});

/** The environment of an actor whose model is the fake OpenAI server at `baseUrl`. */
export const fakeModelEnv = (baseUrl: string) => ({
  LLM_BASE_URL: baseUrl,
  LLM_MODEL: 'fake-model',
  LLM_API_KEY: 'sk-test',
  LLM_MAX_RETRIES: '0',
  LLM_TIMEOUT_MS: '2000',
});
