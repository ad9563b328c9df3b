// The actor as an MCP server (`expose_mcp`): `/mcp`.

export { mcpRouter, type McpRouterOptions } from './mcp-router.js';
