import * as v from 'valibot';
import { ActorError, clientClosedError } from './actor-error.js';
import { validationError } from './validation-problem.js';

/**
 * `schema` (an object or record schema), refusing an array first: valibot's object schemas take an
 * array, and `v.record` copies its items into an object, where JSON Schema's `type: object`, which
 * `/openapi.json` says, does not.
 * @param schema the object schema
 */
export function objectOnly<TSchema extends v.GenericSchema>(schema: TSchema) {
  return v.pipe(
    v.unknown(),
    v.check((value) => !Array.isArray(value), 'must be an object, not an array'),
    schema,
  );
}

/** True when a `Content-Type` header names JSON (`application/json` or `application/*+json`). */
function isJsonContentType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const mediaType = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return mediaType === 'application/json' || /^application\/[\w.+-]+\+json$/.test(mediaType);
}

/**
 * Reads a request body as JSON, not yet validated: 415 for another media type, 400 for
 * malformed JSON.
 */
export async function readJson(request: Request): Promise<unknown> {
  if (!isJsonContentType(request.headers.get('content-type') ?? undefined)) {
    throw new ActorError('unsupported_media_type', {
      detail: 'Send the body as application/json',
      headers: { 'Accept-Post': 'application/json' },
    });
  }
  let text: string;
  try {
    text = await request.text();
  } catch (error) {
    if (error instanceof ActorError) throw error;
    // The body stream broke: the client closed the connection mid-upload.
    throw clientClosedError(error);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ActorError('invalid_json', {
      detail:
        text.trim() === ''
          ? 'The request body is empty'
          : `The request body is not valid JSON: ${(error as Error).message}`,
    });
  }
}

/** Validates a parsed request body: 422 with one entry per bad field. */
export function validBody<TSchema extends v.GenericSchema>(json: unknown, schema: TSchema): v.InferOutput<TSchema> {
  const result = v.safeParse(schema, json);
  if (!result.success) throw validationError(result.issues);
  return result.output;
}

/**
 * Reads a request body as JSON and validates it: 415 for another media type, 400 for
 * malformed JSON, 422 with one entry per bad field.
 */
export async function readJsonBody<TSchema extends v.GenericSchema>(
  request: Request,
  schema: TSchema,
): Promise<v.InferOutput<TSchema>> {
  return validBody(await readJson(request), schema);
}
