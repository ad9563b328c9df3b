import type { Validator } from '@cfworker/json-schema';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import * as v from 'valibot';
import { createLogger, type Logger } from '../log/logger.js';
import { ActorTool } from './actor-tool.js';
import type { McpServerConfig, McpServers } from './mcp-server-config.js';
import { NO_TRACER, type ActorTracer } from '../telemetry/actor-tracer.js';

/** Options of an `McpToolSource`. */
export interface McpToolSourceOptions {
  readonly logger?: Logger;
  /** Longest wait to connect to a server or list its tools (default 10,000 ms). */
  readonly connectTimeoutMs?: number;
  /** Longest wait for one tool call (default 60,000 ms). */
  readonly callTimeoutMs?: number;
  /** How this client introduces itself to the servers. */
  readonly clientInfo?: { readonly name: string; readonly version: string };
  /** Sends the active span's `traceparent` with each HTTP request to a server (a tool call's is its `execute_tool` span). */
  readonly tracer?: ActorTracer;
  /**
   * Which tools need a person's approval before each call, by their name as the agent sees it
   * (`<server>_<tool>`) and whether the server marks them read-only (`readOnlyHint`); default none.
   */
  readonly needsApproval?: (name: string, readOnly: boolean) => boolean;
}

/**
 * The tools `TOOL_APPROVAL` says need a person's approval: `all` (but read-only ones), `none`, or
 * names separated by commas.
 * @param setting the variable's value
 */
export function toolApprovalOf(setting: string): (name: string, readOnly: boolean) => boolean {
  if (setting === 'all') return (_name, readOnly) => !readOnly;
  if (setting === 'none') return () => false;
  const names = new Set(setting.split(',').map((name) => name.trim()));
  return (name) => names.has(name);
}

interface Connection {
  readonly client: Client;
  readonly transport: Transport;
}

const MAX_PAGES = 20;
const NESTING_KEYWORDS = new Set([
  'properties',
  'items',
  'prefixItems',
  'allOf',
  'anyOf',
  'oneOf',
  '$ref',
  'additionalProperties',
]);

/** `searchDocs`, `search-docs` and `Search Docs` all become `search_docs`. */
function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

function textOf(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content
    .filter(
      (block): block is { type: 'text'; text: string } =>
        typeof block === 'object' && block !== null && block.type === 'text' && typeof block.text === 'string',
    )
    .map((block) => block.text)
    .join('\n');
}

/** `init` with `extra` headers set on top of its own (none added when `extra` is empty). */
function withHeaders(init: RequestInit | undefined, extra: Readonly<Record<string, string>>): RequestInit | undefined {
  const names = Object.keys(extra);
  if (names.length === 0) return init;
  const headers = new Headers(init?.headers);
  for (const name of names) headers.set(name, extra[name]!);
  return { ...init, headers };
}

function outputOf(result: Record<string, unknown>): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent;
  const content = Array.isArray(result.content) ? result.content : [];
  return content.every((block) => typeof block === 'object' && block !== null && block.type === 'text')
    ? textOf(content)
    : content;
}

function argumentsValidator(JsonSchemaValidator: typeof Validator, inputSchema: Record<string, unknown>) {
  const validator = new JsonSchemaValidator(inputSchema as never, '2020-12', false);
  return v.pipe(
    v.record(v.string(), v.unknown()),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const { valid, errors } = validator.validate(dataset.value);
      if (valid) return;
      const leaves = errors.filter((error) => !NESTING_KEYWORDS.has(error.keyword));
      for (const error of (leaves.length > 0 ? leaves : errors).slice(0, 5))
        addIssue({ message: `${error.instanceLocation.replace(/^#/, '') || '/'} ${error.error}` });
    }),
  );
}

/**
 * The tools of the actor's MCP servers (Streamable HTTP and stdio), through the MCP SDK, which
 * is imported only when servers are configured. Each server's tools are named
 * `<server>_<tool>`. A server that cannot be reached logs `tool_source_failed` and contributes
 * nothing; a malformed tool is dropped with the warning `mcp_tool_dropped`.
 * @example
 * const mcp = new McpToolSource({ docs: { url: 'http://127.0.0.1:9000/mcp' } }, { logger });
 * const tools = await buildDefaultRegistry(domainTools, () => mcp.tools(), { logger }).build();
 * await mcp.close();
 */
export class McpToolSource {
  readonly #servers: McpServers;
  readonly #logger: Logger;
  readonly #connectTimeoutMs: number;
  readonly #callTimeoutMs: number;
  readonly #clientInfo: { readonly name: string; readonly version: string };
  readonly #tracer: ActorTracer;
  readonly #needsApproval: (name: string, readOnly: boolean) => boolean;
  readonly #connections = new Map<string, Promise<Connection>>();

  constructor(servers: McpServers, options: McpToolSourceOptions = {}) {
    this.#servers = servers;
    this.#logger = options.logger ?? createLogger();
    this.#connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    this.#callTimeoutMs = options.callTimeoutMs ?? 60_000;
    this.#clientInfo = options.clientInfo ?? { name: 'actorkit', version: '0' };
    this.#tracer = options.tracer ?? NO_TRACER;
    this.#needsApproval = options.needsApproval ?? (() => false);
  }

  /** Names of the configured servers. */
  get serverNames(): string[] {
    return Object.keys(this.#servers);
  }

  /** Connects to every server (once) and lists its tools; never rejects. */
  async tools(): Promise<ActorTool[]> {
    const perServer = await Promise.all(
      Object.entries(this.#servers).map(async ([server, config]) => {
        try {
          return await this.#listTools(server, config);
        } catch (error) {
          this.#connections.delete(server);
          this.#logger.warn('tool_source_failed', { source: `mcp:${server}`, error });
          return [];
        }
      }),
    );
    return perServer.flat();
  }

  /** Closes every connection; stdio servers are stopped. */
  async close(): Promise<void> {
    const connections = [...this.#connections.values()];
    this.#connections.clear();
    await Promise.all(
      connections.map(async (pending) => {
        try {
          await (await pending).client.close();
        } catch {
          // A server that never connected has nothing to close.
        }
      }),
    );
  }

  async #listTools(server: string, config: McpServerConfig): Promise<ActorTool[]> {
    const { client } = await this.#connect(server, config);
    const [{ ResultSchema, ToolSchema }, { Validator }] = await Promise.all([
      import('@modelcontextprotocol/sdk/types.js'),
      import('@cfworker/json-schema'),
    ]);
    const tools: ActorTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page += 1) {
      // Listed loosely, so that one malformed tool cannot reject the whole list.
      const result = await client.request(
        { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
        ResultSchema,
        { timeout: this.#connectTimeoutMs },
      );
      const listed: unknown[] = Array.isArray(result.tools) ? result.tools : [];
      for (const raw of listed) {
        const parsed = ToolSchema.safeParse(raw);
        const rawName = typeof raw === 'object' && raw !== null && 'name' in raw ? String(raw.name) : '(unnamed)';
        if (!parsed.success) {
          this.#logger.warn('mcp_tool_dropped', {
            server,
            tool: rawName,
            reason: parsed.error.issues
              .map((issue) => `${issue.path.join('.') || '(tool)'}: ${issue.message}`)
              .join('; '),
          });
          continue;
        }
        try {
          tools.push(this.#toActorTool(server, client, Validator, parsed.data));
        } catch (error) {
          this.#logger.warn('mcp_tool_dropped', { server, tool: rawName, reason: (error as Error).message });
        }
      }
      cursor = typeof result.nextCursor === 'string' ? result.nextCursor : undefined;
      if (cursor === undefined) break;
    }
    this.#logger.info('mcp_server_connected', { server, tools: tools.length });
    return tools;
  }

  #toActorTool(
    server: string,
    client: Client,
    JsonSchemaValidator: typeof Validator,
    tool: {
      name: string;
      title?: string;
      description?: string;
      inputSchema: Record<string, unknown>;
      annotations?: { readOnlyHint?: boolean };
    },
  ): ActorTool {
    const description =
      tool.description?.trim() || tool.title?.trim() || `Tool ${tool.name} of the MCP server ${server}`;
    const callTimeoutMs = this.#callTimeoutMs;
    const name = `${server}_${snakeCase(tool.name)}`;
    // The server's read-only hint only exempts the tool from `TOOL_APPROVAL=all`: the tool is not
    // marked read-only here, which would offer it again on this actor's own `/mcp`.
    return new ActorTool({
      name,
      needsApproval: this.#needsApproval(name, tool.annotations?.readOnlyHint === true),
      description,
      argsSchema: argumentsValidator(JsonSchemaValidator, tool.inputSchema),
      jsonSchema: tool.inputSchema,
      async runAsync(args, context) {
        const result = (await client.callTool({ name: tool.name, arguments: args }, undefined, {
          signal: context.signal,
          timeout: callTimeoutMs,
        })) as Record<string, unknown>;
        if (result.isError === true) throw new Error(textOf(result.content) || `The MCP tool ${tool.name} failed`);
        return outputOf(result);
      },
    });
  }

  #connect(server: string, config: McpServerConfig): Promise<Connection> {
    let pending = this.#connections.get(server);
    if (pending === undefined) {
      pending = this.#open(server, config);
      this.#connections.set(server, pending);
    }
    return pending;
  }

  async #open(server: string, config: McpServerConfig): Promise<Connection> {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    let transport: Transport;
    if ('url' in config) {
      const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
      const tracer = this.#tracer;
      transport = new StreamableHTTPClientTransport(new URL(config.url), {
        requestInit: { headers: config.headers ?? {} },
        // Read per request: the span active when the SDK sends (a tool call's own) is the parent.
        fetch: (url, init) => fetch(url, withHeaders(init, tracer.traceHeaders())),
      });
    } else {
      const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
      const stdio = new StdioClientTransport({
        command: config.command,
        args: config.args ?? [],
        env: config.env,
        cwd: config.cwd,
        stderr: 'pipe',
      });
      stdio.stderr?.on('data', (chunk: unknown) =>
        this.#logger.debug('mcp_server_stderr', { server, text: String(chunk).slice(0, 2000) }),
      );
      transport = stdio;
    }
    const client = new Client(this.#clientInfo);
    try {
      await client.connect(transport, { timeout: this.#connectTimeoutMs });
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
    return { client, transport };
  }
}
