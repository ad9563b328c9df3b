import { Validator } from '@cfworker/json-schema';
import fc from 'fast-check';
import { request as httpRequest } from 'node:http';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serve } from '../../src/adapter/node/index.js';
import { MemoryStore, silentLogger } from '../../src/index.js';

// Conformance driven by /openapi.json itself (issue #27 item 3): for every operation the actor
// documents, requests generated from the operation's own parameter and body schemas — valid
// and not — in each auth mode; every status must be one the operation lists, a problem+json
// body must match the Problem schema and a JSON body its documented schema, and a header that
// breaks its documented schema must not be accepted.

const ROOT = resolve(import.meta.dirname, '../..');
const KEY = 'conformance-key';
const MESH_KEY = 'a-mesh-key-for-the-conformance-test';
const RUNS_PER_OPERATION = 150;

type Schema = Record<string, unknown>;
interface Parameter {
  readonly name: string;
  readonly in: 'header' | 'path' | 'query';
  readonly required?: boolean;
  readonly schema?: Schema;
}
interface Operation {
  readonly operationId: string;
  readonly security?: readonly Record<string, unknown>[];
  readonly parameters?: readonly Parameter[];
  readonly requestBody?: { readonly content: Record<string, { schema?: Schema }> };
  readonly responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}
interface Document {
  readonly security?: readonly Record<string, unknown>[];
  readonly paths: Record<string, Record<string, Operation>>;
  readonly components: { schemas: Record<string, Schema> };
}
interface App {
  request(input: Request): Response | Promise<Response>;
  actor: { start(): Promise<void>; shutdown(): Promise<void> };
}

async function startExample(example: string, env: Record<string, string>): Promise<App> {
  const { createApp } = (await import(join(ROOT, 'examples', example, 'src', 'app.ts'))) as {
    createApp: (env: Record<string, string>, overrides: object) => App;
  };
  const app = createApp(
    { LLM_PROVIDER: 'offline', MESH_KEY, WORKFLOW_BASE_URL: 'http://127.0.0.1:9', ...env },
    { store: new MemoryStore(), logger: silentLogger },
  );
  await app.actor.start();
  return app;
}

/** The schema with `#/components/schemas/…` references replaced by what they name. */
function resolveRefs(schema: unknown, components: Record<string, Schema>): unknown {
  if (Array.isArray(schema)) return schema.map((item) => resolveRefs(item, components));
  if (typeof schema !== 'object' || schema === null) return schema;
  const ref = (schema as { $ref?: string }).$ref;
  if (ref !== undefined) return resolveRefs(components[ref.replace('#/components/schemas/', '')], components);
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, resolveRefs(value, components)]));
}

/** Whether `value` keeps the `x-max-serialized-bytes` limits the schema states on it and on its properties (JSON Schema has no keyword for a size). */
function withinSerializedLimits(schema: Schema, value: unknown): boolean {
  const limit = schema['x-max-serialized-bytes'];
  if (typeof limit === 'number' && new TextEncoder().encode(JSON.stringify(value)).length > limit) return false;
  if (
    typeof value !== 'object' ||
    value === null ||
    typeof schema.properties !== 'object' ||
    schema.properties === null
  )
    return true;
  return Object.entries(schema.properties as Record<string, Schema>).every(
    ([key, property]) =>
      !Object.hasOwn(value, key) || withinSerializedLimits(property, (value as Record<string, unknown>)[key]),
  );
}

const valid = (schema: Schema | undefined, value: unknown) =>
  schema === undefined ||
  (new Validator(schema as never, '2020-12').validate(value).valid && withinSerializedLimits(schema, value));

/** Values at and past a schema's edges, which random values seldom reach: empty, one over the length, a NUL inside, a large object, over the serialised size. */
function edgeValues(schema: Schema): unknown[] {
  const edges: unknown[] = [];
  if (schema.type === 'string') {
    edges.push('', 'a\u0000b');
    if (typeof schema.maxLength === 'number' && schema.maxLength <= 40_000)
      edges.push('x'.repeat(schema.maxLength), 'x'.repeat(schema.maxLength + 1));
  }
  // A free-form object gets a large one (20 KB), whatever the document says of its size: a limit it does not state must show.
  if (schema.type === 'object' && schema.properties === undefined) edges.push({ pad: 'x'.repeat(20_000) });
  const limit = schema['x-max-serialized-bytes'];
  if (typeof limit === 'number') edges.push({ pad: 'x'.repeat(limit - 20) }, { pad: 'x'.repeat(limit) });
  return edges;
}

/** Values a schema allows (roughly: strings by pattern and length, numbers, objects by their properties), mixed with values it may not. */
function fromSchema(schema: Schema | undefined, depth = 0, strict = false): fc.Arbitrary<unknown> {
  const loose = depth > 2 ? fc.constant(null) : fc.jsonValue({ maxDepth: 2 });
  if (schema === undefined) return strict ? fc.constant({}) : loose;
  const allowed = ((): fc.Arbitrary<unknown> | undefined => {
    if (Array.isArray(schema.oneOf))
      return fc.oneof(...(schema.oneOf as Schema[]).map((branch) => fromSchema(branch, depth)));
    if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
    if ('const' in schema) return fc.constant(schema.const);
    if (schema.type === 'string') {
      if (schema.format === 'uri') return fc.webUrl();
      if (typeof schema.pattern === 'string')
        return fc.stringMatching(new RegExp(schema.pattern)).filter((text) => valid(schema, text));
      const length = {
        minLength: (schema.minLength as number | undefined) ?? 0,
        maxLength: Math.min((schema.maxLength as number | undefined) ?? 40, 40),
      };
      return fc.oneof(fc.string(length), fc.string({ ...length, unit: 'binary-ascii' }));
    }
    if (schema.type === 'integer')
      return fc.integer({ min: (schema.minimum as number | undefined) ?? -1000, max: 1000 });
    if (schema.type === 'number') return fc.double({ noNaN: true, noDefaultInfinity: true });
    if (schema.type === 'boolean') return fc.boolean();
    if (schema.type === 'array' && depth < 3)
      return fc.array(fromSchema(schema.items as Schema | undefined, depth + 1, strict), { maxLength: 3 });
    if (schema.type === 'object' && typeof schema.properties === 'object' && schema.properties !== null && depth < 3) {
      const properties = schema.properties as Record<string, Schema>;
      const required = new Set((schema.required as string[] | undefined) ?? []);
      const requiredKeys = Object.keys(properties).filter((key) => required.has(key));
      const record = Object.fromEntries(
        Object.entries(properties).map(([key, value]) => [key, fromSchema(value, depth + 1, strict)]),
      );
      if (strict) return fc.record(record, { requiredKeys });
      // One property at an edge and the others as allowed, so each edge is met on a body that is otherwise fine.
      const strictRecord = Object.fromEntries(
        Object.entries(properties).map(([key, value]) => [key, fromSchema(value, depth + 1, true)]),
      );
      const withEdges = Object.keys(properties).filter((key) => edgeValues(properties[key] as Schema).length > 0);
      const oneAtEdge =
        withEdges.length === 0
          ? undefined
          : fc
              .constantFrom(...withEdges)
              .chain((key) =>
                fc.record(
                  { ...strictRecord, [key]: fc.constantFrom(...edgeValues(properties[key] as Schema)) },
                  { requiredKeys: [...requiredKeys, key] },
                ),
              );
      const records = fc.record(record, { requiredKeys });
      return oneAtEdge === undefined ? records : fc.oneof(records, oneAtEdge);
    }
    return undefined;
  })();
  if (strict) return allowed ?? fc.constant(null);
  const edges = edgeValues(schema);
  const choices = [
    { arbitrary: allowed ?? loose, weight: 4 },
    { arbitrary: loose, weight: 1 },
    ...(edges.length > 0 ? [{ arbitrary: fc.constantFrom(...edges), weight: 1 }] : []),
  ];
  return allowed === undefined && edges.length === 0 ? loose : fc.oneof(...choices);
}

const asText = (value: unknown) => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));
/** Header values a Request can carry: no control characters but tab, no leading or trailing space. */
const sendableHeader = (value: string) =>
  /^[\x21-\x7e\x80-\xff]([\x20-\x7e\x80-\xff\t]*[\x21-\x7e\x80-\xff])?$/.test(value) || value === '';

/** How a generated body is sent: as JSON, as broken JSON (400), or as JSON under another media type (415). */
const ENCODINGS = ['json', 'malformed', 'text/plain', 'application/x-www-form-urlencoded'] as const;
type Encoding = (typeof ENCODINGS)[number];
const encoding: fc.Arbitrary<Encoding> = fc.oneof(
  { arbitrary: fc.constant('json' as const), weight: 6 },
  { arbitrary: fc.constantFrom(...ENCODINGS.slice(1)), weight: 2 },
);

interface Generated {
  readonly headers: Record<string, string>;
  readonly path: string;
  readonly body: unknown;
  readonly encoding: Encoding;
  readonly withKey: boolean;
}

function requests(path: string, operation: Operation): fc.Arbitrary<Generated> {
  const parameters = operation.parameters ?? [];
  const value = (parameter: Parameter) => fromSchema(parameter.schema).map(asText);
  const optional = (parameter: Parameter) =>
    parameter.required === true ? value(parameter) : fc.option(value(parameter), { nil: undefined });
  const headers = fc.record(
    Object.fromEntries(parameters.filter((p) => p.in === 'header').map((p) => [p.name, optional(p)])),
  );
  // A path value of `.` or `..` is a dot segment: the URL names another path, not this operation.
  const pathValues = fc.record(
    Object.fromEntries(
      parameters
        .filter((p) => p.in === 'path')
        .map((p) => [p.name, value(p).filter((text) => text !== '' && text !== '.' && text !== '..')]),
    ),
  );
  const query = fc.record(
    Object.fromEntries(parameters.filter((p) => p.in === 'query').map((p) => [p.name, optional(p)])),
  );
  const bodySchema = operation.requestBody?.content['application/json']?.schema;
  const body = operation.requestBody === undefined ? fc.constant(undefined) : fromSchema(bodySchema);
  return fc
    .record({ headers, pathValues, query, body, encoding, withKey: fc.boolean() })
    .map(({ headers: header, pathValues: values, query: search, body: sent, encoding: sentAs, withKey }) => {
      const filled = path.replace(/\{([^}]+)\}/g, (_match, name: string) => encodeURIComponent(values[name] ?? 'x'));
      const pairs = Object.entries(search).filter((entry): entry is [string, string] => entry[1] !== undefined);
      return {
        headers: Object.fromEntries(
          Object.entries(header).filter(
            (entry): entry is [string, string] => entry[1] !== undefined && sendableHeader(entry[1]),
          ),
        ),
        path: pairs.length > 0 ? `${filled}?${new URLSearchParams(pairs)}` : filled,
        body: sent,
        encoding: sentAs,
        withKey,
      };
    });
}

/**
 * Operations whose request body the document describes fully, so a body it allows must not get
 * 422 `validation_failed`, with the title of the body schema that is (of a `oneOf`, the branch):
 * invoke's chat request. The AI SDK's body, its other branch, has rules JSON Schema cannot state
 * (its last message must be the user's, with text).
 */
const FULLY_DESCRIBED_BODIES: ReadonlyMap<string, string> = new Map([['invoke', 'ChatRequest']]);

/** The body schema a fully described operation is held to. */
function fullyDescribedBody(operationId: string, schema: Schema | undefined): Schema | undefined {
  const title = FULLY_DESCRIBED_BODIES.get(operationId);
  if (title === undefined || schema === undefined) return undefined;
  return schema.title === title
    ? schema
    : (schema.oneOf as Schema[] | undefined)?.find((branch) => branch.title === title);
}

/** The mismatches of one answer with what the document says of the operation; empty when it conforms. */
function mismatches(
  operation: Operation,
  generated: Generated,
  response: Response,
  text: string,
  problemSchema: Schema,
): string[] {
  const found: string[] = [];
  const status = String(response.status);
  const documented = operation.responses[status] ?? operation.responses.default;
  if (documented === undefined) return [`status ${status} is not documented (${text.slice(0, 160)})`];
  const type = response.headers.get('content-type')?.split(';')[0]?.trim() ?? '';
  if (type === 'application/problem+json' && !valid(problemSchema, JSON.parse(text)))
    found.push(`problem body does not match Problem: ${text.slice(0, 160)}`);
  const schema = documented.content?.[type]?.schema;
  if (type === 'application/json' && schema !== undefined && !valid(schema, JSON.parse(text)))
    found.push(`${status} body does not match its schema: ${text.slice(0, 160)}`);
  const code = type === 'application/problem+json' ? (JSON.parse(text) as { code?: string }).code : undefined;
  for (const parameter of operation.parameters ?? []) {
    const sent = parameter.in === 'header' ? generated.headers[parameter.name] : undefined;
    if (sent === undefined) continue;
    const allowed = valid(parameter.schema, sent);
    if (!allowed && response.status < 300)
      found.push(`header ${parameter.name}: ${JSON.stringify(sent)} breaks its schema but got ${status}`);
  }
  const headersAllowed = (operation.parameters ?? []).every(
    (parameter) =>
      parameter.in !== 'header' ||
      generated.headers[parameter.name] === undefined ||
      valid(parameter.schema, generated.headers[parameter.name]),
  );
  if (code === 'invalid_header' && headersAllowed)
    found.push(`400 invalid_header for headers the document allows: ${JSON.stringify(generated.headers)}`);
  if (generated.body === undefined) return found;
  const sentAs = generated.encoding;
  if (sentAs !== 'json' && response.status < 300)
    found.push(`a body sent as ${sentAs} got ${status}, as if it were JSON`);
  const bodySchema = operation.requestBody?.content['application/json']?.schema;
  if (sentAs !== 'json' || !headersAllowed) return found;
  const described = fullyDescribedBody(operation.operationId, bodySchema);
  if (described === undefined || bodySchema === undefined) return found;
  if (code === 'validation_failed' && valid(described, generated.body))
    found.push(
      `422 for a body the document allows: ${JSON.stringify(generated.body).slice(0, 200)} → ${text.slice(0, 200)}`,
    );
  if (!valid(bodySchema, generated.body) && response.status < 300)
    found.push(`${status} for a body the document does not allow: ${JSON.stringify(generated.body).slice(0, 200)}`);
  return found;
}

const MODES = [
  ['hello-actor', 'no key', {}],
  ['hello-actor', 'key on', { API_KEY_ENABLED: 'true', API_KEY: KEY }],
  ['hello-actor', 'platform', { ACTOR_PLATFORM: 'true' }],
  ['mesh-actor', 'key on', { API_KEY_ENABLED: 'true', API_KEY: KEY }],
  ['panel-workflow-actor', 'no key', {}],
] as const;

describe('conformance to /openapi.json, property-based (issue #27 item 3)', () => {
  for (const [example, mode, env] of MODES) {
    it(`${example}, ${mode}: every answer is one its operation documents`, async () => {
      const app = await startExample(example, env);
      try {
        const document = resolveRefs(
          await (await app.request(new Request('http://localhost/openapi.json'))).json(),
          {},
        ) as Document;
        const components = (document.components.schemas ?? {}) as Record<string, Schema>;
        const resolved = resolveRefs(document.paths, components) as Document['paths'];
        const problemSchema = components.Problem as Schema;
        const found = new Set<string>();
        for (const [path, methods] of Object.entries(resolved)) {
          for (const [method, operation] of Object.entries(methods)) {
            if (path.startsWith('/workflow/')) continue; // proxied to a workflow tool the test does not run
            await fc.assert(
              fc.asyncProperty(requests(path, operation), async (generated) => {
                const headers = new Headers(generated.headers);
                if (generated.withKey) headers.set('X-API-Key', KEY);
                if (
                  (operation.security ?? document.security ?? []).some((requirement) => 'meshKey' in requirement) &&
                  generated.withKey
                )
                  headers.set('X-Mesh-Key', MESH_KEY);
                if (operation.parameters?.some((p) => p.name === 'Accept') && !headers.has('Accept'))
                  headers.set('Accept', 'application/json, text/event-stream');
                const init: RequestInit = { method: method.toUpperCase(), headers };
                if (generated.body !== undefined) {
                  const json = JSON.stringify(generated.body);
                  headers.set(
                    'Content-Type',
                    generated.encoding === 'json' || generated.encoding === 'malformed'
                      ? 'application/json'
                      : generated.encoding,
                  );
                  init.body = generated.encoding === 'malformed' ? `${json.slice(0, -1)}{` : json;
                }
                const response = await app.request(new Request(`http://localhost${generated.path}`, init));
                const text = await response.text();
                for (const mismatch of mismatches(operation, generated, response, text, problemSchema))
                  found.add(`${method.toUpperCase()} ${path}: ${mismatch}`);
              }),
              { numRuns: RUNS_PER_OPERATION },
            );
          }
        }
        expect([...found].sort().join('\n')).toBe('');
      } finally {
        await app.actor.shutdown();
      }
    }, 120_000);
  }
});

/** Methods a client may send that no operation may have unless the document lists it; TRACE cannot be built as a fetch `Request`, so these go over a real socket. */
const OTHER_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND'] as const;

function send(
  url: string,
  method: string,
  headers: Record<string, string>,
): Promise<{ status: number; allow: string | undefined }> {
  return new Promise((done, fail) => {
    const sent = httpRequest(url, { method, headers }, (response) => {
      response.resume();
      response.on('end', () => done({ status: response.statusCode ?? 0, allow: response.headers.allow }));
    });
    sent.on('error', fail);
    sent.end();
  });
}

describe('a method a documented path does not have: 405 with the Allow the document implies, before any key (issue #27)', () => {
  for (const [example, mode, env] of MODES) {
    it(`${example}, ${mode}: over a real socket`, async () => {
      const { createApp } = (await import(join(ROOT, 'examples', example, 'src', 'app.ts'))) as {
        createApp: (env: Record<string, string>, overrides: object) => App;
      };
      const make = () =>
        createApp(
          { LLM_PROVIDER: 'offline', MESH_KEY, WORKFLOW_BASE_URL: 'http://127.0.0.1:9', ...env },
          { store: new MemoryStore(), logger: silentLogger },
        );
      const server = await serve(make as never, { port: 0, hostname: '127.0.0.1', signals: false });
      try {
        const document = (await (
          await fetch(`${server.url}/openapi.json`, { headers: { 'X-API-Key': KEY } })
        ).json()) as Document;
        const found = new Set<string>();
        for (const [path, methods] of Object.entries(document.paths)) {
          if (path.startsWith('/workflow/')) continue; // the proxy answers every method
          const documented = new Set(Object.keys(methods).map((method) => method.toUpperCase()));
          if (documented.has('GET')) documented.add('HEAD');
          const others = OTHER_METHODS.filter((method) => !documented.has(method));
          if (others.length === 0) continue;
          await fc.assert(
            fc.asyncProperty(fc.constantFrom(...others), fc.boolean(), async (method, withKey) => {
              const { status, allow } = await send(
                `${server.url}${path.replace(/\{[^}]+\}/g, 'x')}`,
                method,
                withKey ? { 'X-API-Key': KEY } : {},
              );
              const allowed = new Set(
                (allow ?? '')
                  .split(',')
                  .map((item) => item.trim())
                  .filter(Boolean),
              );
              if (status !== 405) found.add(`${method} ${path}${withKey ? ' (with the key)' : ''}: ${status}, not 405`);
              else if ([...allowed].sort().join() !== [...documented].sort().join())
                found.add(`${method} ${path}: Allow ${allow} but the document has ${[...documented].join(', ')}`);
            }),
            { numRuns: 20 },
          );
        }
        expect([...found].sort().join('\n')).toBe('');
      } finally {
        await server.close();
      }
    }, 120_000);
  }
});
