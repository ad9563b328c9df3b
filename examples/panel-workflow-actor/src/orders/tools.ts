import * as v from 'valibot';
import { ActorTool } from 'actorkit';
import type { OrdersClient } from './client.js';

/**
 * The orders domain's tools. Names are snake_case and namespaced by the domain;
 * descriptions are what the model reads. Tools here only read: writing or destructive
 * capabilities are refused by the forbidden-verb test in test/actor.test.ts.
 */
export function ordersTools(client: () => OrdersClient): ActorTool[] {
  return [
    new ActorTool({
      name: 'orders_lookup',
      description: 'Looks up what Panel Workflow Actor knows about a topic. Use it whenever the user asks about a orders topic.',
      // Only reads: an MCP client of /mcp (expose_mcp) may call it directly.
      readOnly: true,
      argsSchema: v.object({ topic: v.pipe(v.string(), v.minLength(1), v.maxLength(200), v.description('The topic to look up')) }),
      runAsync: ({ topic }) => client().lookup(topic),
    }),
  ];
}
