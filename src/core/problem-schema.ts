import { problemCatalogue, type ProblemCode } from './problem-codes.js';

/** Where the OpenAPI document keeps `PROBLEM_DOCUMENT_SCHEMA` (its `components.schemas.Problem`). */
const PROBLEM_SCHEMA_REF = '#/components/schemas/Problem';

/** The JSON Schema of every problem+json body the runtime sends (`ProblemDocument`). */
export const PROBLEM_DOCUMENT_SCHEMA = {
  type: 'object',
  required: ['type', 'title', 'status', 'code', 'request_id'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string' },
    request_id: { type: 'string' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['pointer', 'detail'],
        properties: { pointer: { type: 'string' }, detail: { type: 'string' } },
      },
    },
  },
} as const;

const oneOrEnum = <T>(values: readonly T[]) => (values.length === 1 ? { const: values[0] } : { enum: values });

/**
 * The JSON Schema of the problems some catalogue codes answer with: the document schema (by
 * reference to `components.schemas.Problem`) narrowed to those `code`s and their `status`es.
 * @param codes the codes one response of an operation can carry, e.g. `'invalid_json', 'invalid_header'`
 * @example
 * responses[413] = { description, content: { [PROBLEM_CONTENT_TYPE]: { schema: problemSchemaFor('payload_too_large') } } };
 */
export function problemSchemaFor(...codes: readonly [ProblemCode, ...ProblemCode[]]): Record<string, unknown> {
  const statuses = [...new Set(codes.map((code) => problemCatalogue[code].status))];
  return {
    allOf: [
      { $ref: PROBLEM_SCHEMA_REF },
      { type: 'object', properties: { code: oneOrEnum(codes), status: oneOrEnum(statuses) } },
    ],
  };
}
