import { createLogger, type Logger } from '../log/logger.js';
import type { ActorTool } from './actor-tool.js';

/** Tools of one source: a list, a promise of one, or a function that loads them (e.g. from MCP servers). */
export type ToolSourceInput =
  | readonly ActorTool[]
  | Promise<readonly ActorTool[]>
  | (() => readonly ActorTool[] | Promise<readonly ActorTool[]>);

/** Options of a `ToolRegistry`. */
export interface ToolRegistryOptions {
  /** Receives `tool_registry_built`, `tool_source_failed` and `tool_duplicate_dropped`. */
  readonly logger?: Logger;
}

/**
 * Collects tools from named sources. `build()` loads every source, keeps the first tool of
 * each name (later duplicates are dropped with a warning), logs `tool_registry_built` with the
 * total and the count per source; a source that fails logs `tool_source_failed` and
 * contributes nothing.
 * @example
 * const tools = await new ToolRegistry({ logger }).add('domain', [greet]).add('mcp', () => mcp.tools()).build();
 */
export class ToolRegistry {
  readonly #sources: { readonly name: string; readonly input: ToolSourceInput }[] = [];
  readonly #logger: Logger;

  constructor(options: ToolRegistryOptions = {}) {
    this.#logger = options.logger ?? createLogger();
  }

  /** Adds a source; sources are read in the order they were added. */
  add(source: string, tools: ToolSourceInput): this {
    if (this.#sources.some((existing) => existing.name === source))
      throw new TypeError(`Tool source ${source} is already registered`);
    this.#sources.push({ name: source, input: tools });
    return this;
  }

  /** Loads every source and returns the tools, deduplicated by name, first registration first. */
  async build(): Promise<ActorTool[]> {
    const loaded = await Promise.all(
      this.#sources.map(async ({ name, input }) => {
        try {
          const tools = await (typeof input === 'function' ? input() : input);
          if (!Array.isArray(tools)) throw new TypeError('the source did not give a list of tools');
          return { name, tools: tools as readonly ActorTool[] };
        } catch (error) {
          this.#logger.warn('tool_source_failed', { source: name, error });
          return { name, tools: [] };
        }
      }),
    );
    const byName = new Map<string, ActorTool>();
    const sources: Record<string, number> = {};
    for (const { name, tools } of loaded) {
      sources[name] = 0;
      for (const tool of tools) {
        if (byName.has(tool.name)) {
          this.#logger.warn('tool_duplicate_dropped', { source: name, tool: tool.name });
          continue;
        }
        byName.set(tool.name, tool);
        sources[name] += 1;
      }
    }
    this.#logger.info('tool_registry_built', { total: byName.size, sources });
    return [...byName.values()];
  }
}

/**
 * The registry every actor starts from: the actor's domain tools first, then the tools of its
 * MCP servers, so a domain tool wins over an MCP tool of the same name.
 * @param domainTools the actor's own tools
 * @param mcpTools the MCP tools, usually `() => mcpSource.tools()`
 * @example
 * const tools = await buildDefaultRegistry([greet], () => mcp.tools(), { logger }).build();
 */
export function buildDefaultRegistry(
  domainTools: ToolSourceInput,
  mcpTools: ToolSourceInput = [],
  options: ToolRegistryOptions = {},
): ToolRegistry {
  return new ToolRegistry(options).add('domain', domainTools).add('mcp', mcpTools);
}
