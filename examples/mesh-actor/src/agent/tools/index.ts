import type { ActorTool } from 'actorkit';
import type { WeatherClient } from '../../weather/client.js';
import { weatherTools } from '../../weather/tools.js';

/** Every domain tool of the actor; MCP tools from `MCP_SERVERS` are added after these. */
export function domainTools(client: () => WeatherClient): ActorTool[] {
  return [...weatherTools(client)];
}
