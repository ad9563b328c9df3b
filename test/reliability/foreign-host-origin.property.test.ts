import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActorApp, type ActorApp } from '../../src/app/create-actor-app.js';
import { defaultActorFeatures } from '../../src/core/actor-definition.js';
import { createLogger, createMemorySink, type LogRecord } from '../../src/log/logger.js';
import { testActorDefinition } from '../../src/testing/create-test-actor.js';
import { method, routePath, routePatterns } from './support/http-arbitraries.js';
import { unexpectedErrors } from './support/reliability-actor.js';
import { assertResponseInvariants, observe } from './support/response-invariants.js';

// Property-based: foreign `Host` and `Origin` values on every route the app has (its own route
// list, `/mcp` included), with and without an API key and on the platform. Each request is built
// from labelled parts (a loopback Host, a foreign one…; the actor's own Origin, a foreign one…),
// so the answer the refusal rules call for is known: no 5xx ever, 400 `invalid_host`, 421
// `host_not_allowed` (keyless only), 403 `origin_not_allowed` (state-changing methods, and every
// method of /mcp), 405 for a method /mcp does not have (before the key and its Origin check), or
// an answer that is none of those refusals.

const KEY = 'fuzz-key-0123456789';
const ALLOWED = 'actor.example,10.0.0.5:8080';

type Mode = 'keyless' | 'keyed' | 'platform';
const ENVIRONMENTS: Record<Mode, Record<string, string>> = {
  keyless: { ALLOWED_HOSTS: ALLOWED },
  keyed: { API_KEY_ENABLED: 'true', API_KEY: KEY },
  platform: { ACTOR_PLATFORM: 'true' },
};

/** The test actor with `/mcp` on, so its Origin rule is fuzzed too. */
const definition = { ...testActorDefinition, features: { ...defaultActorFeatures, exposeMcp: true } };

type HostKind = 'absent' | 'loopback' | 'allowed' | 'foreign' | 'invalid';
const HOSTS: Record<Exclude<HostKind, 'absent'>, readonly string[]> = {
  loopback: [
    'localhost',
    'LOCALHOST:3000',
    'actor.localhost:8080',
    '127.0.0.1',
    '127.0.0.1:8080',
    '127.9.9.9:1',
    '[::1]:8080',
    'localhost.',
  ],
  allowed: ['actor.example', 'Actor.Example:443', 'actor.example.:9', '10.0.0.5:8080'],
  foreign: [
    'attacker.example',
    'attacker.example:8080',
    'actor.example.attacker.example',
    '10.0.0.5:8081',
    '10.0.0.5',
    '192.168.1.7:8080',
    '[fd00::1]:8080',
    'localhost.attacker.example',
    '127.0.0.1.nip.io',
    '0.0.0.0:8080',
    'evil',
  ],
  invalid: ['127.0.0.1:99999', 'localhost:65536', '[::1]:99999', '1.2.3.256', 'a/b', 'user@localhost', 'a b', '[:::]'],
};

type OriginKind = 'absent' | 'own' | 'foreign';
/** Origins of pages elsewhere: none of them is the origin of any Host above. */
const FOREIGN_ORIGINS = [
  'http://elsewhere.example',
  'http://elsewhere.example:8080',
  'https://127.0.0.1.attacker.example',
  'http://localhost:1',
  'null',
  'file://',
  'not an origin',
  'http://127.0.0.1:8080/path',
  'chrome-extension://abcdef',
];

/** `Sec-Fetch-Site`, which a browser sends and a page cannot set: when present, it decides. */
type SiteKind = 'absent' | 'same-origin' | 'none' | 'same-site' | 'cross-site';

interface Case {
  readonly method: string;
  readonly path: string;
  readonly host: { readonly kind: HostKind; readonly value: string | undefined };
  readonly origin: { readonly kind: OriginKind; readonly value: string | undefined };
  readonly site: SiteKind;
  readonly withKey: boolean;
}

/** The URL a request is sent to; a request without `Host` addresses this authority. */
const BASE = 'http://127.0.0.1:8080';

const hostArbitrary = fc.oneof(
  fc.constant({ kind: 'absent' as HostKind, value: undefined }),
  ...(Object.entries(HOSTS) as [HostKind, readonly string[]][]).map(([kind, values]) =>
    fc.constantFrom(...values).map((value) => ({ kind, value: value as string | undefined })),
  ),
);

function caseArbitrary(app: ActorApp): fc.Arbitrary<Case> {
  return fc
    .record({
      method,
      path: routePath(routePatterns(app, { all: true })),
      host: hostArbitrary,
      originKind: fc.constantFrom<OriginKind>('absent', 'own', 'foreign'),
      foreignOrigin: fc.constantFrom(...FOREIGN_ORIGINS),
      site: fc.constantFrom<SiteKind>('absent', 'absent', 'absent', 'same-origin', 'none', 'same-site', 'cross-site'),
      withKey: fc.boolean(),
    })
    .map(({ originKind, foreignOrigin, ...rest }) => {
      // The actor's own origin as a browser serialises it (lower case, no default port).
      const own = new URL(
        `${rest.host.kind === 'allowed' ? 'https' : 'http'}://${rest.host.kind === 'absent' || rest.host.kind === 'invalid' ? new URL(BASE).host : rest.host.value}`,
      ).origin;
      const value = originKind === 'absent' ? undefined : originKind === 'own' ? own : foreignOrigin;
      return { ...rest, origin: { kind: originKind, value } };
    });
}

function requestOf(sent: Case): Request {
  const headers: Record<string, string> = {};
  if (sent.host.value !== undefined) headers.Host = sent.host.value;
  if (sent.origin.value !== undefined) headers.Origin = sent.origin.value;
  if (sent.site !== 'absent') headers['Sec-Fetch-Site'] = sent.site;
  if (sent.withKey) headers['X-API-Key'] = KEY;
  const hasBody = sent.method !== 'GET' && sent.method !== 'HEAD';
  if (hasBody) headers['Content-Type'] = 'application/json';
  return new Request(`${BASE}${sent.path}`, {
    method: sent.method,
    headers,
    ...(hasBody ? { body: '{"greeting":"fuzzed"}' } : {}),
  });
}

/** What the refusal rules call for: the status and code of a refusal, or undefined when none applies. */
function expectedRefusal(
  mode: Mode,
  sent: Case,
  pathname: string,
): { status: number; code: string } | 'mcp-origin' | undefined {
  if (sent.host.kind === 'invalid') return { status: 400, code: 'invalid_host' };
  if (mode === 'keyless' && sent.host.kind === 'foreign') return { status: 421, code: 'host_not_allowed' };
  const fromElsewhere =
    sent.site === 'absent' ? sent.origin.kind === 'foreign' : sent.site === 'same-site' || sent.site === 'cross-site';
  if (fromElsewhere && !['GET', 'HEAD', 'OPTIONS'].includes(sent.method))
    return { status: 403, code: 'origin_not_allowed' };
  if (fromElsewhere && pathname === '/mcp') return 'mcp-origin';
  return undefined;
}

const REFUSAL_CODES = ['invalid_host', 'host_not_allowed', 'origin_not_allowed'];

/** The methods `/openapi.json` documents for `/mcp` (upper case; HEAD only when GET is there). */
async function documentedMcpMethods(app: ActorApp): Promise<readonly string[]> {
  const response = await app.fetch(new Request(`${BASE}/openapi.json`, { headers: { 'X-API-Key': KEY } }));
  const document = (await response.json()) as { paths: Record<string, Record<string, unknown>> };
  const methods = Object.keys(document.paths['/mcp'] ?? {}).map((name) => name.toUpperCase());
  return methods.includes('GET') ? [...methods, 'HEAD'] : methods;
}

async function checkOne(app: ActorApp, mode: Mode, sent: Case, mcpMethods: readonly string[]): Promise<void> {
  const request = requestOf(sent);
  const pathname = new URL(request.url).pathname;
  const before = JSON.stringify(app.actor.context.settings.values);
  const response = await app.fetch(request);
  const body = await response.text();
  const label = `${mode} ${sent.method} ${sent.path} Host=${JSON.stringify(sent.host.value)} Origin=${JSON.stringify(sent.origin.value)} Sec-Fetch-Site=${sent.site} key=${sent.withKey}`;
  // /mcp answers its own errors as JSON-RPC (application/json), the rest of the actor as problems.
  if (pathname === '/mcp' && !(response.headers.get('content-type') ?? '').startsWith('application/problem+json'))
    expect(response.status, label).toBeLessThan(500);
  else assertResponseInvariants(observe(response, body), sent.method);
  const problem =
    (response.headers.get('content-type') ?? '').startsWith('application/problem+json') && sent.method !== 'HEAD';
  const code = problem ? (JSON.parse(body) as { code?: unknown }).code : undefined;
  const expected = expectedRefusal(mode, sent, pathname);
  if (expected === 'mcp-origin' && !mcpMethods.includes(sent.method)) {
    // A method /mcp does not have is a 405 before the API key and the Origin are looked at.
    expect(response.status, label).toBe(405);
    expect(response.headers.get('allow')?.split(', ').sort(), label).toEqual([...mcpMethods].sort());
  } else if (expected === 'mcp-origin') {
    // Every method /mcp has checks Origin, after the API key (a missing key is a 401 first).
    const keyFirst = mode === 'keyed' && !sent.withKey;
    expect(response.status, label).toBe(keyFirst ? 401 : 403);
    if (!keyFirst && sent.method !== 'HEAD') expect(code, label).toBe('origin_not_allowed');
  } else if (expected !== undefined) {
    expect(response.status, label).toBe(expected.status);
    if (sent.method !== 'HEAD') expect(code, label).toBe(expected.code);
  } else {
    expect(response.status, label).not.toBe(421);
    expect(REFUSAL_CODES, label).not.toContain(code);
  }
  if (expected !== undefined)
    expect(JSON.stringify(app.actor.context.settings.values), `${label}: a refused request changed the settings`).toBe(
      before,
    );
}

for (const mode of Object.keys(ENVIRONMENTS) as Mode[]) {
  describe(`foreign Host and Origin on every route: ${mode}`, () => {
    let app: ActorApp;
    let logs: LogRecord[];
    let mcpMethods: readonly string[];
    beforeAll(async () => {
      const sink = createMemorySink();
      app = createActorApp({
        definition,
        env: { DATABASE_URL: 'memory://', ...ENVIRONMENTS[mode] },
        logger: createLogger({ level: 'warn', sink }),
      });
      logs = sink.records;
      await app.actor.start();
      mcpMethods = await documentedMcpMethods(app);
    });
    afterAll(async () => {
      await app.actor.shutdown();
    });

    it('never a 5xx; each request refused exactly as the Host and Origin rules say, and a refused one changes nothing', async () => {
      expect(routePatterns(app, { all: true })).toContain('/mcp');
      expect(mcpMethods).toContain('POST');
      await fc.assert(
        fc.asyncProperty(caseArbitrary(app), (sent) => checkOne(app, mode, sent, mcpMethods)),
        { numRuns: 700 },
      );
      expect(unexpectedErrors(logs)).toEqual([]);
    });
  });
}
