import * as v from 'valibot';

const StringMap = v.record(v.string(), v.string());

/** An MCP server reached over Streamable HTTP. */
const McpHttpServer = v.strictObject({
  url: v.pipe(v.string(), v.url('must be an absolute URL')),
  /** Extra request headers, e.g. `Authorization`. */
  headers: v.optional(StringMap),
});

/** An MCP server started as a child process, spoken to over stdio. */
const McpStdioServer = v.strictObject({
  command: v.pipe(v.string(), v.minLength(1, 'must not be empty')),
  args: v.optional(v.array(v.string())),
  /** Added to a minimal inherited environment (PATH, HOME, …). */
  env: v.optional(StringMap),
  cwd: v.optional(v.string()),
});

/** One MCP server: `{url, headers?}` (Streamable HTTP) or `{command, args?, env?, cwd?}` (stdio). */
export const McpServerConfig = v.union(
  [McpHttpServer, McpStdioServer],
  'must be {url, headers?} or {command, args?, env?, cwd?}',
);

/**
 * The MCP servers of an actor, keyed by a snake_case name that prefixes their tools
 * (server `docs`, tool `search` → `docs_search`), the shape of the common `mcpServers` files.
 */
export const McpServers = v.record(
  v.pipe(
    v.string(),
    v.regex(/^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/, 'server names must be snake_case'),
    v.maxLength(32, 'server names must be at most 32 characters'),
  ),
  McpServerConfig,
);

/** One MCP server's connection. */
export type McpServerConfig = v.InferOutput<typeof McpServerConfig>;
/** MCP servers by name. */
export type McpServers = v.InferOutput<typeof McpServers>;

/**
 * Reads MCP servers from a JSON text (the `MCP_SERVERS` setting or variable) or an object;
 * empty means none. Mistakes throw with every problem named.
 * @example
 * parseMcpServers('{"docs": {"url": "http://127.0.0.1:9000/mcp"}, "files": {"command": "node", "args": ["files.js"]}}');
 */
export function parseMcpServers(raw: unknown): McpServers {
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) return {};
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new Error(`MCP_SERVERS is not valid JSON: ${(error as Error).message}`);
    }
  }
  if (Array.isArray(value))
    throw new Error('MCP_SERVERS is invalid: it must be an object of servers by name, not a list');
  const result = v.safeParse(McpServers, value);
  if (!result.success) {
    throw new Error(
      `MCP_SERVERS is invalid: ${result.issues.map((issue) => `${v.getDotPath(issue) ?? '(root)'} ${issue.message}`).join('; ')}`,
    );
  }
  return result.output;
}
