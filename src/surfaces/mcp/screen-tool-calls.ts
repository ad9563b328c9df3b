import { jsonPointer } from '../../core/json-pointer.js';

/** Keys refused anywhere in tool arguments: a tool that copies its arguments would set an object's prototype or shadow its constructor. */
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** A JSON-RPC request id. */
export type JsonRpcId = string | number;

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
function toolArgumentsProblem(args: unknown): string | undefined {
  if (args === undefined) return undefined;
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return `arguments must be a JSON object, got ${jsonType(args)}`;
  const pending: { readonly pointer: string; readonly value: object }[] = [{ pointer: '', value: args }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    for (const [key, child] of Object.entries(next.value)) {
      const pointer = next.pointer + jsonPointer(key);
      if (PROTOTYPE_KEYS.has(key)) return `${pointer} is not allowed (the keys __proto__, constructor and prototype are refused)`;
      if (typeof child === 'object' && child !== null) pending.push({ pointer, value: child });
    }
  }
  return undefined;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Finds the `tools/call` requests among `messages` whose arguments cannot run and drops those
 * arguments, so the SDK's own schema (which answers `arguments: []` with -32603 and silently
 * drops a `__proto__` key) lets the call reach the handler, which answers -32602 with the problem.
 * @param messages the JSON-RPC messages of one POST, changed in place
 * @returns each refused call's problem by its JSON-RPC id
 */
export function screenToolCalls(messages: readonly unknown[]): ReadonlyMap<JsonRpcId, string> {
  const refused = new Map<JsonRpcId, string>();
  for (const message of messages) {
    if (!isRecord(message) || message.method !== 'tools/call' || !isRecord(message.params)) continue;
    if (typeof message.id !== 'string' && typeof message.id !== 'number') continue;
    const problem = toolArgumentsProblem(message.params.arguments);
    if (problem === undefined) continue;
    refused.set(message.id, problem);
    delete message.params.arguments;
  }
  return refused;
}
