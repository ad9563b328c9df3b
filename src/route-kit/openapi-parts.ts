import { toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import type { ProblemCode } from '../core/problem-codes.js';
import { PROBLEM_CONTENT_TYPE } from '../core/problem-response.js';
import { problemSchemaFor } from '../core/problem-schema.js';
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
