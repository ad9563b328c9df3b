import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { jsonPointer } from '../../core/json-pointer.js';
import type { McpServerSdk } from './load-mcp-server-sdk.js';

/** Keys refused anywhere in tool arguments: a tool that copies its arguments would set an object's prototype or shadow its constructor. */
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

/**
 * Why the `arguments` of a `tools/call` cannot run: not a JSON object, or (named by its JSON
 * pointer) a `__proto__`, `constructor` or `prototype` key at any depth. Undefined when they
 * can (absent arguments are `{}`). The walk keeps its own stack, so no nesting overflows it.
 * @param args the `arguments` as parsed from the request body
 */
export function toolArgumentsProblem(args: unknown): string | undefined {
  if (args === undefined) return undefined;
  if (typeof args !== 'object' || args === null || Array.isArray(args))
    return `arguments must be a JSON object, got ${jsonType(args)}`;
  const pending: { readonly pointer: string; readonly value: object }[] = [{ pointer: '', value: args }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    for (const [key, child] of Object.entries(next.value)) {
      const pointer = next.pointer + jsonPointer(key);
      if (PROTOTYPE_KEYS.has(key))
        return `${pointer} is not allowed (the keys __proto__, constructor and prototype are refused)`;
      if (typeof child === 'object' && child !== null) pending.push({ pointer, value: child });
    }
  }
  return undefined;
}

/** What this module needs of one of the SDK's (zod) request schemas. */
interface RequestSchema {
  safeParse(value: unknown):
    | { readonly success: true }
    | {
        readonly success: false;
        readonly error: {
          readonly issues: readonly { readonly path: readonly PropertyKey[]; readonly message: string }[];
        };
      };
}

/** The SDK's schema of each request this server answers, by method. */
function requestSchemas(sdk: McpServerSdk): ReadonlyMap<string, RequestSchema> {
  return new Map<string, RequestSchema>([
    ['initialize', sdk.InitializeRequestSchema],
    ['ping', sdk.PingRequestSchema],
    ['tools/list', sdk.ListToolsRequestSchema],
    ['tools/call', sdk.CallToolRequestSchema],
    ['resources/list', sdk.ListResourcesRequestSchema],
    ['resources/read', sdk.ReadResourceRequestSchema],
  ]);
}

/** Why a request's params cannot be handled, as the message of a -32602; undefined when they can. */
function paramsProblem(schemas: ReadonlyMap<string, RequestSchema>, request: JSONRPCRequest): string | undefined {
  if (request.method === 'tools/call') {
    const problem = toolArgumentsProblem(request.params?.arguments);
    if (problem !== undefined) return `Invalid arguments for tool ${String(request.params?.name)}: ${problem}`;
  }
  const parsed = schemas.get(request.method)?.safeParse(request);
  if (parsed === undefined || parsed.success) return undefined;
  const issues = parsed.error.issues.map(
    (issue) => `${jsonPointer(...issue.path.map(String)) || '/'} ${issue.message}`,
  );
  return `Invalid params for ${request.method}: ${issues.join('; ')}`;
}

/**
 * Answers a request whose params this server cannot take with JSON-RPC -32602 before the SDK
 * sees it: the SDK's own parsing answers bad params with -32603 and a schema dump, and silently
 * drops a `__proto__` key from tool arguments, so `tools/call` arguments are checked on the body
 * as sent (`toolArgumentsProblem`). Call it after `server.connect(transport)`.
 * @param sdk the loaded MCP SDK
 * @param transport the connected transport of one request
 */
export function screenMcpRequests(sdk: McpServerSdk, transport: WebStandardStreamableHTTPServerTransport): void {
  const schemas = requestSchemas(sdk);
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const problem = sdk.isJSONRPCRequest(message) ? paramsProblem(schemas, message) : undefined;
    if (problem === undefined) return deliver?.(message, extra);
    const refusal = {
      jsonrpc: '2.0' as const,
      id: (message as JSONRPCRequest).id,
      error: { code: sdk.ErrorCode.InvalidParams, message: problem },
    };
    transport.send(refusal).catch((error: unknown) => transport.onerror?.(error as Error));
  };
}
