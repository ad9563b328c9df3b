import fc from 'fast-check';

/** Every request header the runtime reads (DESIGN §3, §4). */
export const READ_HEADERS = [
  'X-Request-Id',
  'X-Tenant-Id',
  'X-API-Key',
  'Content-Type',
  'Accept',
  'Idempotency-Key',
  'If-None-Match',
] as const;

/** Characters a Fetch `Headers` value may hold: tab, visible ASCII, space and Latin-1. */
const HEADER_CHARS = [
  '\t',
  ...Array.from({ length: 0x7f - 0x20 }, (_, index) => String.fromCharCode(0x20 + index)),
  ...Array.from({ length: 0x100 - 0x80 }, (_, index) => String.fromCharCode(0x80 + index)),
];

/** Values that mean something to one of the read headers, so the fuzz reaches past the first check. */
const MEANINGFUL_VALUES = [
  '',
  ' ',
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/merge-patch+json',
  'application/problem+json',
  'text/plain',
  'multipart/form-data; boundary=x',
  'text/event-stream',
  'text/event-stream;q=0.9, application/json',
  '*/*',
  'W/"abc"',
  '"not-the-etag"',
  '*',
  'tenant-a',
  'tenant.b:c-d_e',
  'idem-1',
  'idem-2',
  'contract-req-42',
  'key-one',
  'key-two',
  'key-one,key-two',
  '../../etc/passwd',
  '%00',
  'null',
];

/** Any value a `Headers` object accepts, biased towards values the runtime understands. */
export const headerValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...MEANINGFUL_VALUES) },
  { weight: 3, arbitrary: fc.string({ unit: fc.constantFrom(...HEADER_CHARS), maxLength: 64 }) },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(...HEADER_CHARS), minLength: 120, maxLength: 600 }) },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z0-9._:-]{1,140}$/) },
);

type ReadHeader = (typeof READ_HEADERS)[number];

/** Zero or more of the read headers with arbitrary values. */
export const readHeaders: fc.Arbitrary<Record<string, string>> = fc.record(
  Object.fromEntries(READ_HEADERS.map((name) => [name, headerValue])) as Record<ReadHeader, fc.Arbitrary<string>>,
  {
    requiredKeys: [],
  },
) as fc.Arbitrary<Record<string, string>>;

const mostlyValid = (valid: fc.Arbitrary<string>) =>
  fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: headerValue });

/**
 * The read headers, each mostly well-formed and sometimes arbitrary, so that requests get past
 * the header checks often enough to exercise what follows (idempotency keys repeat on purpose).
 */
export const plausibleHeaders: fc.Arbitrary<Record<string, string>> = fc.record(
  {
    'X-Request-Id': mostlyValid(fc.stringMatching(/^[\w-]{1,64}$/)),
    'X-Tenant-Id': mostlyValid(fc.constantFrom('tenant-a', 'tenant-b', 'default')),
    'X-API-Key': headerValue,
    'Content-Type': mostlyValid(
      fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/vnd.actor+json'),
    ),
    Accept: mostlyValid(
      fc.constantFrom('application/json', 'text/event-stream', '*/*', 'text/event-stream, application/json;q=0.5'),
    ),
    'Idempotency-Key': mostlyValid(
      fc.oneof(
        { weight: 3, arbitrary: fc.uuid() },
        { weight: 1, arbitrary: fc.constantFrom('idem-1', 'idem-2', 'idem-3') },
      ),
    ),
    'If-None-Match': headerValue,
  } satisfies Record<ReadHeader, fc.Arbitrary<string>>,
  { requiredKeys: [] },
) as fc.Arbitrary<Record<string, string>>;

/** Request methods the Fetch `Request` constructor accepts, including made-up ones. */
export const method: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS') },
  {
    weight: 1,
    arbitrary: fc.stringMatching(/^[A-Z]{1,12}$/).filter((name) => !['CONNECT', 'TRACE', 'TRACK'].includes(name)),
  },
);

/**
 * The route patterns of an app, from its own route list, e.g. `/stats/:tenant_id`: by default
 * without its `ALL` entries (middleware, mostly); with `all`, those too (a route such as `/mcp`
 * answers every method), wildcard middleware patterns left out.
 * @param app an actor app (anything with Hono's `routes`)
 * @param options `all`: include the `ALL` entries
 */
export function routePatterns(
  app: { readonly routes: readonly { readonly method: string; readonly path: string }[] },
  options: { all?: boolean } = {},
): string[] {
  const kept = app.routes.filter((route) =>
    options.all === true ? !route.path.includes('*') : route.method !== 'ALL',
  );
  return [...new Set(kept.map((route) => route.path))];
}

/** A path segment: plain, percent-encoded arbitrary text, dot segments, or long. */
const segment: fc.Arbitrary<string> = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9._:-]{1,20}$/),
  fc.string({ maxLength: 40 }).map((text) => encodeURIComponent(text)),
  fc.constantFrom('..', '.', '%2e%2e', '%2E', '%2F', '%00', '%ff', '~', '%20', 'x'.repeat(300)),
);

/**
 * Paths built from the app's own routes: parameters filled with arbitrary segments, then
 * sometimes bent (trailing slash, `//`, dot segments, upper case, an extra segment, a query).
 * @param routePaths the app's route patterns, e.g. `/stats/:tenant_id`
 */
export function routePath(routePaths: readonly string[]): fc.Arbitrary<string> {
  const filled = fc
    .tuple(fc.constantFrom(...routePaths), fc.array(segment, { minLength: 4, maxLength: 4 }))
    .map(([pattern, values]) => {
      let index = 0;
      return pattern.replace(/:[A-Za-z_]+/g, () => values[index++ % values.length]!);
    });
  const bend = fc.constantFrom<(path: string, extra: string) => string>(
    (path) => path,
    (path) => path,
    (path) => `${path}/`,
    (path) => `/${path}`,
    (path) => path.toUpperCase(),
    (path, extra) => `${path}/${extra}`,
    (path, extra) => `/${extra}/..${path}`,
    (path) => `/health/..${path}`,
    (path) => path.replace(/^\//, '/%2e/'),
  );
  const query = fc.option(
    fc.dictionary(
      fc.constantFrom('provider', 'tenant_id', 'return_to', 'code', 'state', 'x'),
      fc.oneof(segment, fc.constantFrom('/ok', '//evil.example', 'https://evil.example/')),
    ),
    { nil: undefined },
  );
  return fc.tuple(filled, bend, segment, query).map(([path, bendPath, extra, params]) => {
    const bent = bendPath(path, extra);
    const search = params === undefined ? '' : `?${new URLSearchParams(params).toString()}`;
    return `${bent}${search}`;
  });
}

/** A valid chat request (DESIGN §3), before any mutation. */
export const validChatRequest = fc.record(
  {
    user_identifier: fc.string({ minLength: 1, maxLength: 40 }),
    session_id: fc.stringMatching(/^[A-Za-z0-9._:-]{1,40}$/),
    message: fc.string({ minLength: 1, maxLength: 120 }),
    role: fc.constantFrom('user', 'system'),
    metadata: fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
    stream: fc.boolean(),
  },
  { requiredKeys: ['user_identifier', 'session_id', 'message'] },
);

const CHAT_KEYS = [
  'user_identifier',
  'session_id',
  'message',
  'role',
  'metadata',
  'attachments',
  'stream',
  'tenant_id',
  'unknown_key',
] as const;

const fieldValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom('', ' ', 'x'.repeat(33_000), -1, 1e308, true, null, [], {}),
  fc.array(
    fc.record(
      {
        name: fc.string(),
        mime_type: fc.constantFrom('image/png', 'bad type'),
        url: fc.constantFrom('https://example.com/a.png', 'not a url'),
        data: fc.constantFrom('aGVsbG8=', '@@@'),
      },
      { requiredKeys: [] },
    ),
    { maxLength: 12 },
  ),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 3000 }), { maxKeys: 8 }),
  fc.record({ tenant_id: fc.oneof(fc.string(), fc.integer()) }),
);

/** A chat request as it is (half the time) or with one to three fields replaced by arbitrary values, removed, or added. */
export const mutatedChatRequest: fc.Arbitrary<Record<string, unknown>> = fc
  .tuple(
    validChatRequest,
    fc.oneof(
      fc.constant([]),
      fc.array(fc.tuple(fc.constantFrom(...CHAT_KEYS), fc.option(fieldValue, { nil: undefined })), {
        minLength: 1,
        maxLength: 3,
      }),
    ),
  )
  .map(([request, changes]) => {
    const mutated: Record<string, unknown> = { ...request };
    for (const [key, value] of changes) {
      if (value === undefined) delete mutated[key];
      else mutated[key] = value;
    }
    return mutated;
  });

/** A request body as text: JSON of a value, cut short, with junk around it, or not JSON at all. */
export function bodyText(value: fc.Arbitrary<unknown>): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: value.map((json) => JSON.stringify(json) ?? 'undefined') },
    {
      weight: 1,
      arbitrary: fc.tuple(value, fc.nat()).map(([json, cut]) => {
        const text = JSON.stringify(json) ?? '';
        return text.slice(0, cut % (text.length + 1));
      }),
    },
    { weight: 1, arbitrary: value.map((json) => `\uFEFF${JSON.stringify(json)}`) },
    { weight: 1, arbitrary: value.map((json) => `${JSON.stringify(json)},{}`) },
    { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        'null',
        '[]',
        '{}',
        '"text"',
        '{"a":',
        '\u0000',
        '{"__proto__":{"x":1}}',
        '{"constructor":{"prototype":{"x":1}}}',
      ),
    },
  );
}
