import type { ActorTool } from 'actorkit';
import type { OrdersClient } from '../../orders/client.js';
import { ordersTools } from '../../orders/tools.js';

/** Every domain tool of the actor; MCP tools from `MCP_SERVERS` are added after these. */
export function domainTools(client: () => OrdersClient): ActorTool[] {
  return [...ordersTools(client)];
}
