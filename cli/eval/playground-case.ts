/**
 * The playground's "Save as eval case", served by `actorkit dev` (whose process owns the actor's
 * folder; the app stays Fetch-only and answers this path 404): the conversation of the page
 * written as `evals/<name>.yaml`, in the format {@link parseEvalCase} reads.
 * @module
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as v from 'valibot';
import { stringify } from 'yaml';
import { checkHeaderKey, hasForeignOrigin, originNotAllowedError } from '../../src/http/index.js';
import { ActorError, problemResponse } from '../../src/index.js';
import { EVALS_DIR, parseEvalCase } from './eval-case.js';

/** A case name that is a safe file name on every system: no separator, no dot, no leading dash. */
const CASE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,79}$/;

/** What the playground sends: the user's turns and the tool calls of the conversation, in order. */
const PlaygroundCase = v.strictObject({
  name: v.pipe(
    v.string(),
    v.regex(CASE_NAME, 'must be 1 to 80 letters, digits, - or _, starting with a letter or digit'),
  ),
  overwrite: v.optional(v.boolean(), false),
  tenant: v.optional(v.pipe(v.string(), v.minLength(1))),
  session: v.optional(v.pipe(v.string(), v.minLength(1))),
  turns: v.pipe(
    v.array(
      v.pipe(
        v.string(),
        v.check((turn) => turn.trim() !== '', 'is an empty turn'),
      ),
    ),
    v.minLength(1, 'the conversation is empty: send a message first'),
  ),
  tools: v.optional(
    v.array(v.strictObject({ name: v.pipe(v.string(), v.minLength(1)), args: v.optional(v.unknown()) })),
    [],
  ),
});

/** A conversation of the playground to save as a case. */
type PlaygroundCase = v.InferOutput<typeof PlaygroundCase>;

/** The largest request body the route reads (a conversation, not a file upload). */
export const PLAYGROUND_CASE_BODY_LIMIT = 1024 * 1024;

/**
 * The Fetch handler of `PLAYGROUND_EVAL_CASES_PATH` under `actorkit dev`. `GET` answers 200
 * `{ "directory": "evals" }` (the page shows its button when it does); `POST` writes the
 * conversation as `evals/<name>.yaml`: 201 `{ "file", "name" }` (200 when it overwrote). Refused
 * as problem+json: a page of another origin 403, a missing or wrong key 401 (when the actor has
 * `API_KEY`s), a body that is not JSON 415/422, a bad name or an empty conversation 422, a case of
 * that name 409 `eval_case_exists` unless `overwrite` is true.
 * @param options the actor's folder and the keys the actor accepts (none: no key needed)
 * @example
 * const handle = playgroundCaseHandler({ actorDir: '/work/shop', apiKeys: [] });
 * const response = await handle(new Request('http://127.0.0.1:8080/playground/eval-cases'));
 */
export function playgroundCaseHandler(options: {
  readonly actorDir: string;
  readonly apiKeys: readonly string[];
}): (request: Request) => Promise<Response> {
  const evalsDir = join(options.actorDir, EVALS_DIR);
  return async function savePlaygroundCase(request) {
    const requestId = crypto.randomUUID();
    try {
      if (hasForeignOrigin(request, undefined, false)) throw originNotAllowedError();
      if (request.method === 'GET') return Response.json({ directory: EVALS_DIR });
      if (request.method !== 'POST')
        throw new ActorError('method_not_allowed', { detail: 'GET or POST', headers: { Allow: 'GET, POST' } });
      if (options.apiKeys.length > 0) {
        const check = checkHeaderKey(request.headers.get('x-api-key') ?? undefined, options.apiKeys);
        if (check === 'missing')
          throw new ActorError('missing_api_key', { detail: 'Send your key in the X-API-Key header' });
        if (check === 'invalid')
          throw new ActorError('invalid_api_key', { detail: 'The X-API-Key header does not hold a valid key' });
      }
      if (!(request.headers.get('content-type') ?? '').toLowerCase().startsWith('application/json'))
        throw new ActorError('unsupported_media_type', { detail: 'send the conversation as application/json' });
      const body: unknown = await request.json().catch(() => {
        throw new ActorError('validation_failed', { detail: 'the body is not JSON' });
      });
      const parsed = v.safeParse(PlaygroundCase, body);
      if (!parsed.success)
        throw new ActorError('validation_failed', {
          detail: parsed.issues[0].message,
          errors: parsed.issues.map((issue) => ({
            pointer: `/${(issue.path ?? []).map((item) => String(item.key)).join('/')}`,
            detail: issue.message,
          })),
        });
      const saved = parsed.output;
      const file = `${EVALS_DIR}/${saved.name}.yaml`;
      const taken = ['yaml', 'yml'].some((extension) => existsSync(join(evalsDir, `${saved.name}.${extension}`)));
      if (taken && !saved.overwrite)
        throw new ActorError('eval_case_exists', {
          detail: `${file} (or .yml) exists: choose another name, or overwrite it`,
        });
      const text = caseFileText(saved);
      parseEvalCase(text, file);
      await mkdir(evalsDir, { recursive: true });
      await writeFile(join(evalsDir, `${saved.name}.yaml`), text, { flag: saved.overwrite ? 'w' : 'wx' }).catch(
        (error: NodeJS.ErrnoException) => {
          if (error.code === 'EEXIST') throw new ActorError('eval_case_exists', { detail: `${file} exists` });
          throw error;
        },
      );
      return Response.json({ file, name: saved.name }, { status: taken ? 200 : 201 });
    } catch (error) {
      return problemResponse(error, requestId);
    }
  };
}

/** The YAML of a case file for a playground conversation (see docs/evals.md, "From the playground"). */
function caseFileText(saved: PlaygroundCase): string {
  const called = saved.tools.map((tool) =>
    isPlainObject(tool.args) ? { name: tool.name, args: literalArgs(tool.args) } : { name: tool.name },
  );
  const document = {
    description: `Saved from the playground on ${new Date().toISOString().slice(0, 10)} (edit the expectations to what must hold)`,
    ...(saved.tenant !== undefined ? { tenant: saved.tenant } : {}),
    ...(saved.session !== undefined ? { session: saved.session } : {}),
    turns: saved.turns,
    ...(called.length > 0 ? { expect: { tools: { called, ...(called.length > 1 ? { in_order: true } : {}) } } } : {}),
  };
  return stringify(document, { lineWidth: 0 });
}

/** Whether `value` is a JSON object (the only arguments a case matches; others are left out). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The arguments as the case matches them: a string that reads as a `/…/` pattern becomes a pattern of itself, so it still matches only itself. */
function literalArgs(value: unknown): unknown {
  if (typeof value === 'string' && /^\/.+\/[a-z]*$/.test(value))
    return `/^${value.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$/`;
  if (Array.isArray(value)) return value.map(literalArgs);
  if (isPlainObject(value))
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, literalArgs(item)]));
  return value;
}
