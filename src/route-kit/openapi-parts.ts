import { toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import type { ProblemCode } from '../core/problem-codes.js';
import { PROBLEM_CONTENT_TYPE } from '../core/problem-response.js';
import { problemSchemaFor } from '../core/problem-schema.js';
import { TenantId } from '../core/tenant-id.js';
import { storableText, UNSTORABLE_TEXT_DETAIL } from '../invoke/storable-text.js';

/** A JSON Schema object as `/openapi.json` writes it. */
export type JsonSchemaObject = Record<string, unknown>;

/** A string with no NUL character: the part of `storableText` JSON Schema can say (an unpaired surrogate cannot travel in JSON text). */
const NO_NUL_PATTERN = '^[^\\u0000]*$';

/** Base64 as valibot's `base64` action accepts it (padded, standard alphabet). */
const BASE64_PATTERN = '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$';

/**
 * The JSON Schema 2020-12 of a valibot schema, as `/openapi.json` embeds it: checks JSON Schema
 * cannot say become descriptions (their message), `storableText` a pattern that refuses NUL,
 * `base64` a pattern with `contentEncoding`.
 * @param schema the valibot schema the route validates with
 */
export function schemaOf(schema: v.GenericSchema): JsonSchemaObject {
  const converted = toJsonSchema(schema, {
    target: 'draft-2020-12',
    errorMode: 'ignore',
    overrideAction({ valibotAction, jsonSchema }) {
      if (valibotAction === storableText && jsonSchema.pattern === undefined)
        return { ...jsonSchema, pattern: NO_NUL_PATTERN, description: describe(jsonSchema, UNSTORABLE_TEXT_DETAIL) };
      if (valibotAction.type === 'base64' && jsonSchema.pattern === undefined)
        return { ...jsonSchema, pattern: BASE64_PATTERN, contentEncoding: 'base64' };
      if (valibotAction.type === 'check' && 'message' in valibotAction && typeof valibotAction.message === 'string')
        return { ...jsonSchema, description: describe(jsonSchema, valibotAction.message) };
      return undefined;
    },
  }) as JsonSchemaObject;
  const { $schema: _dialect, ...rest } = converted;
  return rest;
}

function describe(schema: { description?: string }, rule: string): string {
  return schema.description === undefined ? `Must satisfy: ${rule}.` : `${schema.description} Must satisfy: ${rule}.`;
}

/**
 * A problem+json answer of an operation, naming the stable `code`s it carries.
 * @param description when the route answers it
 * @param codes the problem codes of that answer
 */
export function problem(description: string, codes: readonly [ProblemCode, ...ProblemCode[]]) {
  return {
    description: `${description} (code ${codes.map((code) => `\`${code}\``).join(' or ')})`,
    content: { [PROBLEM_CONTENT_TYPE]: { schema: problemSchemaFor(...codes) } },
  };
}

/** A JSON answer with its schema. */
export function json(description: string, schema: JsonSchemaObject = { type: 'object' }) {
  return { description, content: { 'application/json': { schema } } };
}

/** An HTML page answer. */
export function htmlPage(description: string) {
  return { description, content: { 'text/html': { schema: { type: 'string' } } } };
}

/**
 * A `text/event-stream` media type whose events each carry a JSON value in `data`: `itemSchema`
 * (OpenAPI 3.2's per-event schema, which Schemathesis and other stream-aware tools check each
 * event against) is one event, `{data, event?, id?, retry?}`, its `data` JSON text matching
 * `dataSchema` (`contentMediaType` + `contentSchema`), or the literal `[DONE]` that ends an AI SDK
 * stream. `schema` admits no JSON value: the body is not one JSON document, so a client that reads
 * bodies as JSON (openapi-fetch) gets no `data` from a stream, and its generated type is `never`
 * rather than a `string` every caller would have to narrow away.
 * @param dataSchema the JSON value of each event's `data`
 * @param description what the events are, in order
 */
export function eventStream(dataSchema: JsonSchemaObject, description: string) {
  return {
    'text/event-stream': {
      schema: {
        enum: [],
        description: 'No JSON value: the body is a stream of server-sent events, each as `itemSchema` describes it',
      },
      itemSchema: {
        type: 'object',
        description,
        required: ['data'],
        properties: {
          data: {
            type: 'string',
            if: { const: '[DONE]' },
            else: { contentMediaType: 'application/json', contentSchema: dataSchema },
          },
          event: { type: 'string' },
          id: { type: 'string' },
          retry: { type: 'integer', minimum: 0 },
        },
      },
    },
  };
}

/** The `data` of an event of a typed JSON event stream (AI SDK UI message stream parts, AG-UI events): an object with its `type`. */
export const TYPED_EVENT: JsonSchemaObject = {
  type: 'object',
  required: ['type'],
  properties: { type: { type: 'string' } },
};

/**
 * The optional `X-Tenant-Id` header parameter, with the tenant id's schema: one definition for
 * every route that reads the tenant from it (a malformed one is 400 `invalid_header`).
 * @param description what the route does with it, e.g. where else the tenant may come from
 */
export function tenantHeader(description: string) {
  return { name: 'X-Tenant-Id', in: 'header', required: false, description, schema: schemaOf(TenantId) } as const;
}
