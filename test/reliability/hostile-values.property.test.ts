import fc from 'fast-check';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertAnswer } from '../../cli/render/answer-value.js';
import { MAX_METADATA_DEPTH } from '../../src/invoke/chat-metadata.js';
import type { ActorDefinition } from '../../src/core/actor-definition.js';
import { createLogger, createMemorySink } from '../../src/log/logger.js';
import { createTestActor, testActorDefinition } from '../../src/testing/create-test-actor.js';
import { fakeOpenAIForThisFile } from '../agent/fake-openai-server.js';
import { TestSchemas } from '../store/postgres-schemas.js';
import { postgresTestUrl } from '../store/postgres-test-database.js';
import { type ReliabilityActor, startReliabilityActor, unexpectedErrors } from './support/reliability-actor.js';
import { assertResponseInvariants, observe } from './support/response-invariants.js';

// Issue #16 items 1, 3, 4, 8: hostile values — characters no store keeps in every string of
// the chat request, nesting of any depth in `metadata`, and secrets that must never come back
// in any error this code builds (PUT /settings, start-up, model failures, the CLI's answers).

const valid = { user_identifier: 'u-1', session_id: 's-1', message: 'hi' };
const STRING_FIELDS = ['user_identifier', 'session_id', 'message'] as const;

/** A string holding at least one character no store keeps (NUL or an unpaired surrogate). */
const unstorable = fc
  .tuple(
    fc.string({ maxLength: 20 }),
    fc.constantFrom('\u0000', '\ud800', '\udbff', '\udc00', '\udfff'),
    fc.string({ maxLength: 20 }),
  )
  .map(([before, bad, after]) => `${before}${bad}${after}`);

/** Metadata nested `depth` levels, objects and arrays mixed, as JSON text (never built as a value). */
const deepMetadata = fc
  .tuple(
    fc.integer({ min: MAX_METADATA_DEPTH + 1, max: 9_000 }),
    fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
  )
  .map(([depth, shape]) => {
    let open = '';
    let close = '';
    for (let level = 1; level < depth; level += 1) {
      const array = shape[level % shape.length]!;
      open += array ? '[' : '{"k":';
      close = (array ? ']' : '}') + close;
    }
    return `{"top":${open}1${close}}`;
  });

async function invoke(actor: ReliabilityActor, body: string) {
  const response = await actor.app.fetch(
    new Request('http://actor.test/agent/invoke', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    }),
  );
  const text = await response.text();
  assertResponseInvariants(observe(response, text), 'POST');
  return { status: response.status, text };
}

function hostileValueSuite(
  name: string,
  env: () => Promise<Record<string, string>>,
  runs: number,
  after?: () => Promise<void>,
) {
  describe(`hostile values on ${name}`, () => {
    let actor: ReliabilityActor;
    beforeAll(async () => {
      actor = await startReliabilityActor(await env());
    });
    afterAll(async () => {
      await actor.app.actor.shutdown();
      await after?.();
    });

    it('a NUL or unpaired surrogate in any string of the request: 422 naming that field, and counting goes on', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...STRING_FIELDS, 'metadata', 'attachment'),
          unstorable,
          async (field, bad) => {
            const body =
              field === 'metadata'
                ? { ...valid, metadata: { note: bad } }
                : field === 'attachment'
                  ? { ...valid, attachments: [{ name: bad, mime_type: 'text/plain', data: 'aGk=' }] }
                  : { ...valid, [field]: bad };
            const { status, text } = await invoke(actor, JSON.stringify(body));
            expect(status).toBe(422);
            const pointer =
              field === 'metadata' ? '/metadata/note' : field === 'attachment' ? '/attachments/0/name' : `/${field}`;
            expect(
              (JSON.parse(text) as { errors: { pointer: string }[] }).errors.map((error) => error.pointer),
            ).toContain(pointer);
          },
        ),
        { numRuns: runs },
      );
      const { status } = await invoke(actor, JSON.stringify(valid));
      expect(status).toBe(200);
      // A write that outlived the store's time-out under load waits in memory: flush, then look.
      await actor.app.actor.context.turns.flush();
      expect(actor.app.actor.context.stats.pending).toBe(0);
      expect(((await (await actor.app.request('/stats')).json()) as { invocations: number }).invocations).toBe(1);
      expect(await (await actor.app.request('/metrics')).text()).toMatch(
        /^actor_invocation_records_set_aside_total 0$/m,
      );
    });

    it('metadata nested deeper than the limit, however deep and however mixed: 422 at /metadata, never a 500', async () => {
      await fc.assert(
        fc.asyncProperty(deepMetadata, async (metadata) => {
          const { status, text } = await invoke(
            actor,
            `{"user_identifier":"u","session_id":"s","message":"hi","metadata":${metadata}}`,
          );
          expect(status).toBe(422);
          expect((JSON.parse(text) as { errors: { pointer: string }[] }).errors).toEqual([
            { pointer: '/metadata', detail: `must nest at most ${MAX_METADATA_DEPTH} levels deep` },
          ]);
        }),
        { numRuns: Math.ceil(runs / 4) },
      );
      expect(unexpectedErrors(actor.logs)).toEqual([]);
    });
  });
}

hostileValueSuite('SQLite', async () => ({}), 300);

const baseUrl = postgresTestUrl('hostile values on PostgreSQL');
if (baseUrl !== undefined) {
  const schemas = new TestSchemas(baseUrl);
  hostileValueSuite(
    'PostgreSQL',
    () => schemas.create().then((url) => ({ DATABASE_URL: url })),
    150,
    () => schemas.dropAll(),
  );
}

/** A secret made recognisable by its marker, with anything around it. */
const MARKER = 'S3CR3T';
const secret = fc
  .tuple(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }))
  .map(([before, after]) => `${before}${MARKER}${after}`);

/** Secrets with rules, so a bad value has something to be refused for. */
const secretDefinition: ActorDefinition = {
  ...testActorDefinition,
  settings: v.object({
    greeting: v.optional(v.string(), 'Hello'),
    api_token: v.optional(
      v.pipe(
        v.string(),
        v.regex(/^tok-[a-z]+$/),
        v.maxLength(20),
        v.metadata({ 'x-platform-section': 'general', writeOnly: true }),
      ),
    ),
    pin: v.optional(
      v.pipe(v.number(), v.integer(), v.metadata({ 'x-platform-section': 'general', 'x-platform-widget': 'password' })),
    ),
  }),
};

describe('secrets never echoed by an error', () => {
  it('PUT /settings: any bad value of a secret setting, alone or with other bad fields', async () => {
    const app = await createTestActor({ definition: secretDefinition });
    const badValue = fc.oneof(
      secret,
      secret.map((text) => [text]),
      secret.map((text) => ({ value: text })),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('api_token', 'pin'), badValue, fc.boolean(), async (key, value, alsoUnknown) => {
        const body = { [key]: value, ...(alsoUnknown ? { colour: 'red', greeting: 42 } : {}) };
        const response = await app.request('/settings', {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const text = await response.text();
        if (
          typeof value === 'string' &&
          key === 'api_token' &&
          /^tok-[a-z]+$/.test(value) &&
          value.length <= 20 &&
          !alsoUnknown
        )
          return;
        expect(response.status).toBe(422);
        expect(text).not.toContain(MARKER);
        expect((JSON.parse(text) as { errors: { pointer: string }[] }).errors.length).toBe(alsoUnknown ? 3 : 1);
      }),
      { numRuns: 300 },
    );
  });

  it('start-up: a bad secret setting from the environment is named, never shown', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('API_TOKEN', 'PIN'), secret, async (variable, value) => {
        const message = await createTestActor({ definition: secretDefinition, env: { [variable]: value } }).then(
          () => '',
          (error: Error) => error.message,
        );
        expect(message).toContain(variable.toLowerCase());
        expect(message).not.toContain(MARKER);
      }),
      { numRuns: 100 },
    );
  });

  it("the CLI's --data: a bad answer to a secret question is never quoted", () => {
    fc.assert(
      fc.property(
        fc.constantFrom('int', 'bool', 'choice', 'str') as fc.Arbitrary<'int' | 'bool' | 'choice' | 'str'>,
        secret,
        (type, answer) => {
          const check = convertAnswer(
            {
              name: 'key',
              type,
              secret: true,
              choices: type === 'choice' ? [{ label: 'A', value: 'a' }] : undefined,
              validator: { pattern: '^never$', message: 'must be never' },
            } as never,
            answer,
          );
          expect(JSON.stringify(check)).not.toContain(MARKER);
        },
      ),
      { numRuns: 500 },
    );
  });

  describe('model failures', () => {
    const server = fakeOpenAIForThisFile();
    it('keys quoted by the server: never in the reply or the stream (credentials in LLM_BASE_URL refuse the start, unshown)', async () => {
      const fake = await server;
      const failures = fc.oneof(
        secret.map((text) => ({
          kind: 'raw' as const,
          status: 401,
          contentType: 'application/json',
          body: JSON.stringify({ error: { message: `Incorrect API key provided: ${text}` } }),
        })),
        secret.map((text) => ({ kind: 'raw' as const, status: 500, contentType: 'text/plain', body: text })),
        secret.map((text) => ({
          kind: 'raw' as const,
          status: 200,
          contentType: 'application/json',
          body: `{"choices": [${text}`,
        })),
      );
      await fc.assert(
        fc.asyncProperty(failures, fc.boolean(), fc.boolean(), async (reply, stream, unreachable) => {
          const sink = createMemorySink();
          const base = unreachable ? 'http://127.0.0.1:9/v1' : fake.baseUrl;
          const url = new URL(base);
          url.username = 'user';
          url.password = `pw${MARKER}`;
          const refused = await createTestActor({
            env: { LLM_BASE_URL: url.href, LLM_MODEL: 'm' },
            logger: createLogger({ sink }),
          }).catch((error: unknown) => String(error));
          expect(refused).toContain('LLM_BASE_URL');
          expect(refused).not.toContain(MARKER);
          url.username = '';
          url.password = '';
          const app = await createTestActor({
            env: {
              LLM_BASE_URL: url.href,
              LLM_MODEL: 'm',
              LLM_API_KEY: `sk-${MARKER}`,
              LLM_MAX_RETRIES: '0',
              LLM_TIMEOUT_MS: '2000',
            },
            logger: createLogger({ sink }),
          });
          // A streamed call gets its unusable answer as a stream (a JSON answer to stream: true is another matter).
          if (!unreachable)
            fake.reply(stream && reply.status === 200 ? { kind: 'stream', chunks: [reply.body] } : reply);
          const response = await app.request('/agent/invoke', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ ...valid, stream }),
          });
          const text = await response.text();
          expect(text).not.toContain(MARKER);
          expect(text).not.toContain(url.host);
          expect(text).toMatch(/model_error/);
          expect(JSON.stringify(sink.records)).not.toContain(`pw${MARKER}`);
        }),
        { numRuns: 40 },
      );
    });
  });
});
