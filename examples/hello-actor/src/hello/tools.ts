import * as v from 'valibot';
import { ActorTool } from 'actorkit';
import type { HelloClient } from './client.js';

/**
 * The hello domain's tools. Names are snake_case and namespaced by the domain;
 * descriptions are what the model reads. Tools here only read: writing or destructive
 * capabilities are refused by the forbidden-verb test in test/actor.test.ts.
 */
export function helloTools(client: () => HelloClient): ActorTool[] {
  return [
    new ActorTool({
      name: 'hello_lookup',
      description: 'Looks up what Hello Actor knows about a topic. Use it whenever the user asks about a hello topic.',
      // Only reads: an MCP client of /mcp (expose_mcp) may call it directly.
      readOnly: true,
      argsSchema: v.object({ topic: v.pipe(v.string(), v.minLength(1), v.maxLength(200), v.description('The topic to look up')) }),
      runAsync: ({ topic }) => client().lookup(topic),
    }),
  ];
}
