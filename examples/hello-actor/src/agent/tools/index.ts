import type { ActorTool } from 'actorkit';
import type { HelloClient } from '../../hello/client.js';
import { helloTools } from '../../hello/tools.js';

/** Every domain tool of the actor; MCP tools from `MCP_SERVERS` are added after these. */
export function domainTools(client: () => HelloClient): ActorTool[] {
  return [...helloTools(client)];
}
