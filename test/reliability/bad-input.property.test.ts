import fc from 'fast-check';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET_MASK } from '../../src/context/actor-settings.js';
import type { ActorApp } from '../../src/app/create-actor-app.js';
import { CORE_ROUTES, openPaths } from '../../src/routes/core-routes.js';
import { testActorDefinition } from '../../src/testing/create-test-actor.js';
import {
  bodyText,
  method,
  mutatedChatRequest,
  plausibleHeaders,
  readHeaders,
  routePath,
  routePatterns,
} from './support/http-arbitraries.js';
import { type ReliabilityActor, startReliabilityActor, unexpectedErrors } from './support/reliability-actor.js';
import { assertResponseInvariants, observe } from './support/response-invariants.js';

// Property-based bad input through `app.fetch` (in-process, no socket): every route the app
// has, every header it reads, any method and body. Thousands of cases in total; fast-check
// prints the seed and the smallest failing request when one breaks a promise.

interface Sent {
  readonly response: Response;
  readonly text: string;
}

async function send(
  app: ActorApp,
  request: { method: string; path: string; headers: Record<string, string>; body?: string },
): Promise<Sent> {
  const init: RequestInit = { method: request.method, headers: request.headers };
  if (request.body !== undefined && request.method !== 'GET' && request.method !== 'HEAD') init.body = request.body;
  const response = await app.fetch(new Request(`http://actor.test${request.path}`, init));
  const text = await response.text();
  assertResponseInvariants(observe(response, text), request.method);
  return { response, text };
}

/** Counts invokes the way `/stats` must: every 200 to a POST that is not a replay. */
function countsAsInvoke(sent: Sent, requestMethod: string): boolean {
  return (
    requestMethod === 'POST' &&
    sent.response.status === 200 &&
    sent.response.headers.get('idempotent-replayed') === null
  );
}

async function invocations(app: ActorApp): Promise<{ invocations: number; errors: number }> {
  return (await (await app.request('/stats')).json()) as { invocations: number; errors: number };
}

const anyBody = bodyText(fc.oneof(mutatedChatRequest, fc.jsonValue({ maxDepth: 3 })));

describe('bad input, in-process: an open standalone actor', () => {
  let actor: ReliabilityActor;
  beforeAll(async () => {
    actor = await startReliabilityActor();
  });
  afterAll(async () => {
    await actor.app.actor.shutdown();
  });

  it('any method, route, read header and body: no 5xx, every error a problem+json, stats exact', async () => {
    const { app } = actor;
    let invokes = 0;
    await fc.assert(
      fc.asyncProperty(
        method,
        routePath(routePatterns(app)),
        readHeaders,
        anyBody,
        async (requestMethod, path, headers, body) => {
          const sent = await send(app, { method: requestMethod, path, headers, body });
          if (countsAsInvoke(sent, requestMethod)) invokes += 1;
        },
      ),
      { numRuns: 2000 },
    );
    expect(await invocations(app)).toMatchObject({ invocations: invokes, errors: 0 });
    expect(unexpectedErrors(actor.logs)).toEqual([]);
  });

  it('POST /agent/invoke with mutated chat requests and read headers: 200 replies are chat replies or streams; stats exact', async () => {
    const { app } = actor;
    const before = (await invocations(app)).invocations;
    let invokes = 0;
    await fc.assert(
      fc.asyncProperty(
        plausibleHeaders,
        fc.oneof(
          { weight: 2, arbitrary: mutatedChatRequest.map((request) => JSON.stringify(request)) },
          { weight: 1, arbitrary: bodyText(mutatedChatRequest) },
        ),
        async (headers, body) => {
          const sent = await send(app, { method: 'POST', path: '/agent/invoke', headers, body });
          if (sent.response.status !== 200) return;
          if (countsAsInvoke(sent, 'POST')) invokes += 1;
          const type = sent.response.headers.get('content-type') ?? '';
          if (type.startsWith('text/event-stream')) {
            expect(sent.text.trimEnd().endsWith('data: [DONE]')).toBe(true);
            expect(sent.text).not.toContain('"type":"error"');
          } else {
            expect(JSON.parse(sent.text)).toMatchObject({
              status: 'completed',
              message: { role: 'assistant', content: expect.any(String) },
            });
          }
        },
      ),
      { numRuns: 1500 },
    );
    expect(await invocations(app)).toMatchObject({ invocations: before + invokes, errors: 0 });
    expect(unexpectedErrors(actor.logs)).toEqual([]);
  });

  it('PUT /settings with any body: a 200 holds valid settings, anything else changes nothing', async () => {
    const { app } = actor;
    const settingsBody = bodyText(
      fc.oneof(
        fc.jsonValue({ maxDepth: 2 }),
        fc.record(
          {
            greeting: fc.jsonValue({ maxDepth: 1 }),
            max_items: fc.oneof(fc.integer({ min: -5, max: 120 }), fc.double()),
            model: fc.string(),
            api_token: fc.string(),
          },
          { requiredKeys: [] },
        ),
      ),
    );
    await fc.assert(
      fc.asyncProperty(readHeaders, settingsBody, async (headers, body) => {
        const before = { ...app.actor.context.settings.values };
        const sent = await send(app, {
          method: 'PUT',
          path: '/settings',
          headers: { ...headers, 'Content-Type': 'application/json' },
          body,
        });
        const now = app.actor.context.settings.values;
        if (sent.response.status !== 200) {
          expect(now).toEqual(before);
          return;
        }
        expect(v.safeParse(testActorDefinition.settings, now).success).toBe(true);
        for (const key of Object.keys(JSON.parse(body.replace(/^\uFEFF/, '')) as object))
          expect(Object.hasOwn(testActorDefinition.settings.entries, key), `accepted setting ${key}`).toBe(true);
        const shown = (JSON.parse(sent.text) as { settings: Record<string, unknown> }).settings;
        expect([undefined, null, SECRET_MASK]).toContain(shown.api_token);
      }),
      { numRuns: 800 },
    );
    expect(unexpectedErrors(actor.logs)).toEqual([]);
  });

  it('PUT /settings refuses keys inherited from Object.prototype with 422 and stores nothing', async () => {
    const { app } = actor;
    const saved = await app.actor.context.store.loadSettingsOverrides();
    for (const key of ['constructor', 'toString', 'hasOwnProperty', '__proto__']) {
      const sent = await send(app, {
        method: 'PUT',
        path: '/settings',
        headers: { 'Content-Type': 'application/json' },
        body: `{"${key}":{"x":1}}`,
      });
      expect(sent.response.status, `PUT /settings {"${key}": …}`).toBe(422);
    }
    expect(await app.actor.context.store.loadSettingsOverrides()).toEqual(saved);
  });
});

describe('bad input, in-process: API keys on', () => {
  const keys = ['key-one', 'key-two'];
  let actor: ReliabilityActor;
  beforeAll(async () => {
    actor = await startReliabilityActor({ API_KEY_ENABLED: 'true', API_KEY: keys.join(',') });
  });
  afterAll(async () => {
    await actor.app.actor.shutdown();
  });

  it('without a valid X-API-Key, every path but the exact public ones gets 401, or the 405 it gets with the key too; nothing gets a 5xx', async () => {
    const { app } = actor;
    const publicPaths = new Set<string>(openPaths(CORE_ROUTES));
    const seen = { unauthorized: 0, notAllowed: 0 };
    await fc.assert(
      fc.asyncProperty(
        method,
        routePath(routePatterns(app)),
        readHeaders,
        anyBody,
        async (requestMethod, path, headers, body) => {
          const sent = await send(app, { method: requestMethod, path, headers, body });
          const pathname = new URL(`http://actor.test${path}`).pathname;
          const keyHeader = Object.keys(headers).find((name) => name.toLowerCase() === 'x-api-key');
          const key = keyHeader === undefined ? undefined : headers[keyHeader]?.trim();
          if (publicPaths.has(pathname) || (key !== undefined && keys.includes(key))) return;
          // A method the path does not have is a 405 before the key is looked at: the same request
          // with a valid key gets the same 405 and Allow; anything else without the key is a 401.
          const withoutKey = Object.fromEntries(Object.entries(headers).filter(([name]) => name !== keyHeader));
          const keyed = await send(app, {
            method: requestMethod,
            path,
            headers: { ...withoutKey, 'X-API-Key': keys[0]! },
            body,
          });
          if (keyed.response.status === 405) {
            expect(sent.response.status, `${requestMethod} ${path}`).toBe(405);
            expect(sent.response.headers.get('allow'), `${requestMethod} ${path}`).toBe(
              keyed.response.headers.get('allow'),
            );
            seen.notAllowed += 1;
          } else {
            expect(sent.response.status, `${requestMethod} ${path} (${keyed.response.status} with the key)`).toBe(401);
            seen.unauthorized += 1;
          }
        },
      ),
      { numRuns: 1000 },
    );
    expect(seen.unauthorized).toBeGreaterThan(100);
    expect(seen.notAllowed).toBeGreaterThan(100);
    expect(unexpectedErrors(actor.logs)).toEqual([]);
  });
});

describe('bad input, in-process: on the platform (ACTOR_PLATFORM=true)', () => {
  let actor: ReliabilityActor;
  beforeAll(async () => {
    actor = await startReliabilityActor({
      ACTOR_PLATFORM: 'true',
      API_KEY_ENABLED: 'true',
      API_KEY: 'ignored-on-platform',
    });
  });
  afterAll(async () => {
    await actor.app.actor.shutdown();
  });

  it('PUT /settings never changes a setting, whatever the body and headers', async () => {
    const { app } = actor;
    const before = { ...app.actor.context.settings.values };
    await fc.assert(
      fc.asyncProperty(readHeaders, anyBody, async (headers, body) => {
        const sent = await send(app, { method: 'PUT', path: '/settings', headers, body });
        expect([403, 413]).toContain(sent.response.status);
      }),
      { numRuns: 300 },
    );
    expect(app.actor.context.settings.values).toEqual(before);
    expect(unexpectedErrors(actor.logs)).toEqual([]);
  });
});
