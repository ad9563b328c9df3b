import { toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { noOAuthTokens } from '../core/oauth-token-source.js';
import type { ToolDefinition } from './chat-model.js';

/** Tool names: snake_case, namespaced by domain (`<domain>_<action>`), at most 64 characters. */
export const TOOL_NAME_PATTERN = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/;

const MAX_TOOL_NAME_LENGTH = 64;

/** What a tool is told about the invoke that runs it. */
export interface ToolRunContext {
  /** Aborted when the client goes away or the actor shuts down. */
  readonly signal: AbortSignal;
  readonly tenantId: string;
  readonly sessionId: string;
  readonly userIdentifier: string;
  readonly requestId: string;
  /** The actor's current settings. */
  readonly settings: Readonly<Record<string, unknown>>;
  /**
   * A valid OAuth access token of the calling tenant at `provider` (an id the actor's definition
   * declares in `oauth`), refreshed first when it is about to expire. Rejects with `ActorError`:
   * 409 `oauth_not_connected` (the tenant has not connected it yet: the detail names the
   * `/oauth/authorize` URL), 409 `oauth_reauthorization_required`, 502 `oauth_refresh_failed`,
   * 404 `unknown_provider`. A tool that lets it throw gives the model that error to explain.
   * @example
   * const token = await context.oauthToken('github');
   * const response = await fetch('https://api.github.com/user', { headers: { Authorization: `Bearer ${token}` }, signal: context.signal });
   */
  oauthToken(provider: string): Promise<string>;
  /** The W3C trace context (`traceparent`, `tracestate`) of the tool's `execute_tool` span: send it on a request the tool makes to join the turn's trace; empty without traces. */
  readonly traceHeaders?: Readonly<Record<string, string>>;
}

/** Options of an `ActorTool`: give `run`, `runAsync` or both. */
export interface ActorToolOptions<TSchema extends v.GenericSchema, TOutput> {
  /** snake_case, namespaced by domain, e.g. `weather_forecast`. */
  readonly name: string;
  /** What the model sees: say what the tool does and when to use it. */
  readonly description: string;
  /** The arguments, as a valibot object schema; the model sees it as JSON Schema. */
  readonly argsSchema: TSchema;
  /** Runs the tool synchronously on validated arguments (give this or `runAsync`). */
  run?(args: v.InferOutput<TSchema>, context: ToolRunContext): TOutput;
  /** Runs the tool asynchronously on validated arguments (give this or `run`). */
  runAsync?(args: v.InferOutput<TSchema>, context: ToolRunContext): Promise<TOutput>;
  /** True when the tool only reads: `/mcp` offers read-only tools to MCP clients (annotation `readOnlyHint`). */
  readonly readOnly?: boolean;
  /**
   * Whether a call must be approved by a person before it runs: `true`, or a function of the
   * checked arguments and the call's context. The run then waits (`awaiting_input`) for the
   * decision; a denied call is answered to the model as denied. Default: never.
   */
  readonly needsApproval?:
    | boolean
    | ((args: v.InferOutput<TSchema>, context: ToolRunContext) => boolean | Promise<boolean>);
  /** The JSON Schema shown to the model, when `argsSchema` cannot be converted (e.g. a tool from an MCP server). */
  readonly jsonSchema?: Record<string, unknown>;
}

/** The outcome of checking a tool's arguments: the parsed value, or one line per problem. */
export type ToolArgsResult<TArgs> =
  | { readonly success: true; readonly output: TArgs }
  | { readonly success: false; readonly problems: readonly string[] };

/** Thrown by `run` when a tool was built with `runAsync` only. */
export class SyncRunUnsupportedError extends Error {
  constructor(name: string) {
    super(`Tool ${name} runs asynchronously only: call runAsync`);
    this.name = 'SyncRunUnsupportedError';
  }
}

const defaultContext = (): ToolRunContext => ({
  signal: new AbortController().signal,
  tenantId: 'default',
  sessionId: 'local',
  userIdentifier: 'local',
  requestId: 'local',
  settings: {},
  oauthToken: (provider) => noOAuthTokens.getAccessToken('default', provider),
});

/** Throws unless `name` is a valid tool name. */
function assertToolName(name: unknown): asserts name is string {
  if (typeof name !== 'string' || name.length > MAX_TOOL_NAME_LENGTH || !TOOL_NAME_PATTERN.test(name)) {
    throw new TypeError(
      `Tool name ${JSON.stringify(name)} must be snake_case, namespaced by domain (e.g. weather_forecast), at most ${MAX_TOOL_NAME_LENGTH} characters`,
    );
  }
}

/**
 * A tool the model may call: standalone, shaped like the base tool of common LLM tool
 * libraries (`name`, `description`, `argsSchema`, `run`, `runAsync`) without importing one.
 * The name and schema are checked at construction, so a mistake fails at start-up.
 * @example
 * const greet = new ActorTool({
 *   name: 'hello_greet',
 *   description: 'Greets a person by name',
 *   argsSchema: v.object({ name: v.string() }),
 *   run: ({ name }) => `Hello, ${name}!`,
 * });
 */
export class ActorTool<TSchema extends v.GenericSchema = v.GenericSchema, TOutput = unknown> {
  readonly name: string;
  readonly description: string;
  readonly argsSchema: TSchema;
  /** True when the tool only reads (see `ActorToolOptions.readOnly`). */
  readonly readOnly: boolean;
  /** The arguments as JSON Schema, as the model sees them. */
  readonly jsonSchema: Record<string, unknown>;
  readonly #functions: Pick<ActorToolOptions<TSchema, TOutput>, 'run' | 'runAsync'>;
  /** Method syntax, bivariant in its arguments like `#functions`: a tool of any schema is an `ActorTool`. */
  readonly #approval: {
    readonly always: boolean;
    asks?(args: v.InferOutput<TSchema>, context: ToolRunContext): boolean | Promise<boolean>;
  };

  constructor(options: ActorToolOptions<TSchema, TOutput>) {
    assertToolName(options.name);
    if (typeof options.description !== 'string' || options.description.trim() === '')
      throw new TypeError(`Tool ${options.name} needs a description: it is what the model sees`);
    if (options.run === undefined && options.runAsync === undefined)
      throw new TypeError(`Tool ${options.name} needs run or runAsync`);
    const { $schema: _ignored, ...jsonSchema } =
      options.jsonSchema ??
      (toJsonSchema(options.argsSchema, { typeMode: 'input', errorMode: 'ignore' }) as Record<string, unknown>);
    if (jsonSchema.type !== 'object')
      throw new TypeError(`Tool ${options.name} needs an object schema for its arguments`);
    this.name = options.name;
    this.description = options.description;
    this.argsSchema = options.argsSchema;
    this.readOnly = options.readOnly === true;
    this.jsonSchema = jsonSchema;
    this.#functions = { run: options.run, runAsync: options.runAsync };
    const needsApproval = options.needsApproval;
    if (needsApproval !== undefined && typeof needsApproval !== 'boolean' && typeof needsApproval !== 'function')
      throw new TypeError(`Tool ${options.name}: needsApproval must be a boolean or a function`);
    this.#approval =
      typeof needsApproval === 'function' ? { always: false, asks: needsApproval } : { always: needsApproval === true };
  }

  /** Whether this call (its checked arguments, in its context) must be approved by a person before it runs. */
  async needsApproval(args: v.InferOutput<TSchema>, context: ToolRunContext = defaultContext()): Promise<boolean> {
    const approval = this.#approval;
    // Any truthy answer asks: a sloppy rule errs on the side of asking a person.
    if (approval.asks !== undefined) return Boolean(await approval.asks(args, context));
    return approval.always;
  }

  /** The definition offered to the model. */
  get definition(): ToolDefinition {
    return { name: this.name, description: this.description, parameters: this.jsonSchema };
  }

  /** Checks arguments against `argsSchema`. */
  parseArgs(input: unknown): ToolArgsResult<v.InferOutput<TSchema>> {
    const result = v.safeParse(this.argsSchema, input);
    if (result.success) return { success: true, output: result.output };
    return {
      success: false,
      problems: result.issues.map((issue) => `${v.getDotPath(issue) ?? '(arguments)'}: ${issue.message}`),
    };
  }

  /** Runs the tool synchronously; throws `SyncRunUnsupportedError` when it has `runAsync` only. */
  run(args: v.InferOutput<TSchema>, context: ToolRunContext = defaultContext()): TOutput {
    if (this.#functions.run === undefined) throw new SyncRunUnsupportedError(this.name);
    return this.#functions.run(args, context);
  }

  /** Runs the tool; uses `run` when it has no `runAsync`. */
  async runAsync(args: v.InferOutput<TSchema>, context: ToolRunContext = defaultContext()): Promise<TOutput> {
    if (this.#functions.runAsync !== undefined) return this.#functions.runAsync(args, context);
    return this.run(args, context);
  }
}
