import * as v from 'valibot';
import { ActorTool } from '../../../src/agent/actor-tool.js';

/**
 * A tool with side effects whose every call waits for a person (`needsApproval: true`): it
 * "sends" a mail by pushing the recipient onto `sent`, so a test counts how often it ran.
 * @param sent where each run of the tool records its recipient
 * @param whileSending awaited inside each run, after it recorded its recipient: a test holds the run there
 */
export function mailSendTool(sent: string[] = [], whileSending?: () => Promise<void>): ActorTool {
  return new ActorTool({
    name: 'mail_send',
    description: 'Sends an email',
    argsSchema: v.object({ to: v.string(), body: v.string() }),
    needsApproval: true,
    run: async ({ to }) => {
      sent.push(to);
      await whileSending?.();
      return { sent: to };
    },
  });
}
