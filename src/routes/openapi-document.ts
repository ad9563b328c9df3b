import type { ActorContext } from '../context/actor-context.js';
import type { DocumentedOperation, RouteSecurity } from '../context/documented-operation.js';
import type { ProblemCode } from '../core/problem-codes.js';
import { PROBLEM_DOCUMENT_SCHEMA } from '../core/problem-schema.js';
import { MODEL_HEADERS_PATTERN } from '../agent/model-headers.js';
import { problem } from '../route-kit/openapi-parts.js';

/** The security schemes an operation can need, as `components.securitySchemes` names them. */
const SECURITY_SCHEMES = {
  apiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: 'One of API_KEY (comma-separated for rotation), when API_KEY_ENABLED',
  },
  meshKey: { type: 'apiKey', in: 'header', name: 'X-Mesh-Key', description: "The actor group's MESH_KEY (peer reads)" },
} as const;

/** What the actor enforces in its auth mode: whether the API key is on, and whether it answers only allowed hosts. */
interface AuthMode {
  readonly apiKeyOn: boolean;
  readonly hostGuarded: boolean;
}

/** The `security` of an operation exactly as the actor enforces it in an auth mode. */
function securityOf(security: RouteSecurity, { apiKeyOn }: AuthMode): Record<string, string[]>[] {
  if (security === 'open') return [];
  if (security === 'meshKey') return [apiKeyOn ? { apiKey: [], meshKey: [] } : { meshKey: [] }];
  return apiKeyOn ? [{ apiKey: [] }] : [];
}

/**
 * The answers every operation of a security can get before its handler runs; its 401 takes the
 * operation's `refusalContent` as well.
 */
function guardResponses(
  security: RouteSecurity,
  mode: AuthMode,
  refusalContent: DocumentedOperation['refusalContent'],
): Record<number, unknown> {
  const codes: ProblemCode[] = [
    ...(mode.apiKeyOn && security !== 'open' ? (['missing_api_key', 'invalid_api_key'] as const) : []),
    ...(security === 'meshKey' ? (['missing_mesh_key', 'invalid_mesh_key'] as const) : []),
  ];
  const [first, ...rest] = codes;
  const missingKey = first === undefined ? undefined : problem('Missing or wrong key', [first, ...rest]);
  return {
    ...(missingKey !== undefined
      ? { 401: { ...missingKey, content: { ...missingKey.content, ...refusalContent } } }
      : {}),
    ...(mode.hostGuarded
      ? { 421: problem('A Host that is neither a loopback name nor in ALLOWED_HOSTS', ['host_not_allowed']) }
      : {}),
  };
}

/**
 * Builds the OpenAPI 3.2 document of an actor from its documented operations: each operation's
 * `security` and its 401 (and, without an API key off the platform, 421) answers are those the
 * actor enforces in its auth mode, derived from the operation's declared security.
 */
export function openApiDocument(
  ctx: ActorContext,
  operations: readonly DocumentedOperation[],
): Record<string, unknown> {
  const mode: AuthMode = {
    apiKeyOn: ctx.config.apiKeys.length > 0,
    hostGuarded: ctx.config.allowedHosts !== undefined,
  };
  const paths: Record<string, Record<string, unknown>> = {};
  const schemes = new Set<keyof typeof SECURITY_SCHEMES>();
  for (const { method, path, operation, security = 'apiKey', refusalContent } of operations) {
    const requirements = securityOf(security, mode);
    for (const requirement of requirements)
      for (const scheme of Object.keys(requirement)) schemes.add(scheme as keyof typeof SECURITY_SCHEMES);
    const responses = {
      ...(operation.responses as Record<number, unknown>),
      ...guardResponses(security, mode, refusalContent),
    };
    (paths[path] ??= {})[method] = { ...operation, security: requirements, responses };
  }
  return {
    openapi: '3.2.0',
    info: {
      title: ctx.definition.metadata.name,
      version: ctx.definition.metadata.version,
      description: ctx.definition.metadata.description,
    },
    servers: [{ url: '/', description: 'This actor, at the origin that served this document' }],
    paths,
    components: {
      schemas: {
        Problem: PROBLEM_DOCUMENT_SCHEMA,
        SettingsUpdate: settingsUpdateSchema(ctx.settings.jsonSchema),
      },
      ...(schemes.size > 0
        ? {
            securitySchemes: Object.fromEntries(
              [...schemes].sort().map((scheme) => [scheme, SECURITY_SCHEMES[scheme]]),
            ),
          }
        : {}),
    },
    ...(mode.apiKeyOn ? { security: [{ apiKey: [] }] } : {}),
  };
}

/**
 * The body `PUT /settings` takes, derived from the settings' JSON Schema: any of its fields (none
 * is required in an update), and no other (an unknown key is refused, 422 `validation_failed`).
 * A text `llm_headers` setting says the JSON it must hold (`MODEL_HEADERS_PATTERN`), so a value
 * the document admits is one the actor takes.
 */
function settingsUpdateSchema(settingsSchema: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { $schema: _dialect, required: _required, ...schema } = settingsSchema;
  const properties = schema.properties as Record<string, Record<string, unknown>> | undefined;
  const headers = properties?.llm_headers;
  if (properties === undefined || headers?.type !== 'string' || headers.pattern !== undefined)
    return { ...schema, additionalProperties: false };
  const llm_headers = { ...headers, pattern: MODEL_HEADERS_PATTERN, contentMediaType: 'application/json' };
  return { ...schema, properties: { ...properties, llm_headers }, additionalProperties: false };
}
