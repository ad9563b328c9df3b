import { toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { ChatReply } from '../invoke/chat-reply.js';
import { ChatRequest } from '../invoke/chat-request.js';
import type { ActorContext } from '../context/actor-context.js';
import type { DocumentedOperation } from '../context/documented-operation.js';
import { PROBLEM_CONTENT_TYPE } from '../core/problem-response.js';

const schemaOf = (schema: v.GenericSchema) => {
  const { $schema: _ignored, ...rest } = toJsonSchema(schema, { target: 'draft-2020-12', errorMode: 'ignore' }) as Record<string, unknown>;
  return rest;
};

const problem = (description: string) => ({ description, content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: '#/components/schemas/Problem' } } } });
const json = (description: string, schema: Record<string, unknown> = { type: 'object' }) => ({ description, content: { 'application/json': { schema } } });

/** What an operation says when no API key is asked for it (the paths the key check lets through). */
const OPEN = { security: [] } as const;

const STATS_SCHEMA = {
  type: 'object',
  required: ['scope', 'instance_id', 'since', 'invocations', 'errors', 'sessions', 'users', 'tenants', 'input_tokens', 'output_tokens', 'tool_calls', 'latency_ms', 'last_invoked_at'],
  properties: {
    scope: { enum: ['instance', 'tenant'] },
    tenant_id: { type: 'string' },
    instance_id: { type: 'string' },
    since: { type: 'string', format: 'date-time' },
    invocations: { type: 'integer' },
    errors: { type: 'integer' },
    sessions: { type: 'integer' },
    users: { type: 'integer' },
    tenants: { type: 'integer' },
    input_tokens: { type: 'integer' },
    output_tokens: { type: 'integer' },
    tool_calls: { type: 'integer' },
    latency_ms: { type: 'object', properties: { total: { type: 'number' }, avg: { type: 'number' }, max: { type: 'number' } } },
    last_invoked_at: { type: ['string', 'null'], format: 'date-time' },
  },
};

/** The operations of the always-present surface. */
export function coreOperations(ctx: ActorContext): DocumentedOperation[] {
  const tenantParameter = { name: 'tenant_id', in: 'path', required: true, schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' } };
  return [
    {
      method: 'post', path: '/agent/invoke',
      operation: {
        operationId: 'invoke', summary: 'Chat with the actor',
        parameters: [
          { name: 'X-Tenant-Id', in: 'header', required: false, schema: { type: 'string' } },
          { name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string' } },
        ],
        requestBody: { required: true, content: { 'application/json': { schema: schemaOf(ChatRequest) } } },
        responses: {
          200: {
            description: 'The reply; an SSE stream (AI SDK UI message stream) when asked for',
            headers: { 'Idempotent-Replayed': { description: '`true` when this is the stored reply of an earlier request with the same Idempotency-Key', schema: { type: 'string' } } },
            content: { 'application/json': { schema: schemaOf(ChatReply) }, 'text/event-stream': { schema: { type: 'string' } } },
          },
          400: problem('Malformed JSON or header'), 401: problem('Missing or wrong API key'), 409: problem('Idempotency-Key in use by a running request'), 413: problem('Body over the limit'),
          415: problem('Not JSON'), 422: problem('Invalid fields, or an Idempotency-Key reused with another body'), 499: problem('Client closed the request'), 502: problem('Model error'), 503: problem('Starting or draining'), 504: problem('Model time-out'),
        },
      },
    },
    { method: 'get', path: '/health', operation: { operationId: 'health', summary: 'Liveness: always 200 while the process lives', ...OPEN, responses: { 200: json('`ok` or `degraded`') } } },
    { method: 'get', path: '/ready', operation: { operationId: 'ready', summary: 'Readiness', ...OPEN, responses: { 200: json('Ready'), 503: json('Not ready: starting, draining or a failed check') } } },
    { method: 'get', path: '/metrics', operation: { operationId: 'metrics', summary: 'Prometheus metrics', ...OPEN, responses: { 200: { description: 'Text exposition format 0.0.4', content: { 'text/plain': { schema: { type: 'string' } } } } } } },
    { method: 'get', path: '/stats', operation: { operationId: 'stats', summary: 'Statistics of the whole actor', responses: { 200: json('Counters', STATS_SCHEMA), 503: problem('Database unreachable') } } },
    { method: 'get', path: '/stats/{tenant_id}', operation: { operationId: 'tenantStats', summary: 'Statistics of one tenant', parameters: [tenantParameter], responses: { 200: json('Counters', STATS_SCHEMA), 422: problem('Malformed tenant id') } } },
    {
      method: 'put', path: '/settings',
      operation: {
        operationId: 'updateSettings', summary: 'Update settings (standalone only)',
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
        responses: { 200: json('`{settings, applied, restart_required}`; secrets masked'), 403: problem('Managed by the platform'), 422: problem('Invalid settings; nothing changed') },
      },
    },
    { method: 'get', path: '/settings/schema', operation: { operationId: 'settingsSchema', summary: 'JSON Schema 2020-12 of the settings', responses: { 200: { description: 'JSON Schema', content: { 'application/schema+json': { schema: { type: 'object' } } } } } } },
    {
      method: 'get', path: '/',
      operation: {
        operationId: 'index', summary: 'Index: name, version, description and links to the documented routes',
        responses: {
          200: {
            description: 'The index; a small HTML page when Accept prefers text/html',
            content: {
              'application/json': { schema: { type: 'object', required: ['name', 'slug', 'version', 'description', 'links'], properties: { name: { type: 'string' }, slug: { type: 'string' }, version: { type: 'string' }, description: { type: 'string' }, links: { type: 'object', additionalProperties: { type: 'string' } } } } },
              'text/html': { schema: { type: 'string' } },
            },
          },
        },
      },
    },
    ...(ctx.environment.PLAYGROUND_ENABLED
      ? [{ method: 'get' as const, path: '/playground', operation: { operationId: 'playground', summary: 'The chat playground page (PLAYGROUND_ENABLED); every call it makes needs the key', ...OPEN, responses: { 200: { description: 'HTML page', content: { 'text/html': { schema: { type: 'string' } } } } } } }]
      : []),
    { method: 'get', path: '/openapi.json', operation: { operationId: 'openApi', summary: 'This OpenAPI 3.1 document', ...OPEN, responses: { 200: json('OpenAPI 3.1 of every mounted route') } } },
    { method: 'get', path: '/docs', operation: { operationId: 'docs', summary: 'A page that shows this document (no external assets)', ...OPEN, responses: { 200: { description: 'HTML page', content: { 'text/html': { schema: { type: 'string' } } } } } } },
    { method: 'get', path: '/api/actor/metadata', operation: { operationId: 'metadata', summary: 'Marketplace card', responses: { 200: json('The card') } } },
    { method: 'get', path: '/api/actor/platform-config', operation: { operationId: 'platformConfig', summary: 'The baked canonical configuration', responses: { 200: json('src/platform/config.json'), 304: { description: 'Not modified' }, 404: problem('No configuration baked') } } },
    {
      method: 'get', path: '/oauth/authorize',
      operation: {
        operationId: 'oauthAuthorize', summary: 'Start an OAuth flow',
        parameters: ['provider', 'tenant_id', 'return_to'].map((name) => ({ name, in: 'query', required: name === 'provider', schema: { type: 'string' } })),
        responses: { 302: { description: 'Redirect to the provider' }, 400: problem('Bad return_to'), 404: problem('Unknown provider'), 429: problem('Too many pending OAuth flows') },
      },
    },
    {
      method: 'get', path: '/oauth/callback',
      operation: {
        operationId: 'oauthCallback', summary: 'OAuth callback',
        parameters: ['code', 'state'].map((name) => ({ name, in: 'query', required: true, schema: { type: 'string' } })),
        responses: { 302: { description: 'Back to return_to' }, 200: { description: 'Success page' }, 400: problem('Invalid state'), 502: problem('Token exchange failed') },
      },
    },
  ];
}

/** Builds the OpenAPI 3.1 document of an actor from its documented operations. */
export function openApiDocument(ctx: ActorContext, operations: readonly DocumentedOperation[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { method, path, operation } of operations) (paths[path] ??= {})[method] = operation;
  const secured = ctx.config.apiKeys.length > 0;
  return {
    openapi: '3.1.0',
    info: { title: ctx.definition.metadata.name, version: ctx.definition.metadata.version, description: ctx.definition.metadata.description },
    paths,
    components: {
      schemas: {
        Problem: {
          type: 'object',
          required: ['type', 'title', 'status', 'code', 'request_id'],
          properties: {
            type: { type: 'string' }, title: { type: 'string' }, status: { type: 'integer' }, detail: { type: 'string' },
            code: { type: 'string' }, request_id: { type: 'string' },
            errors: { type: 'array', items: { type: 'object', required: ['pointer', 'detail'], properties: { pointer: { type: 'string' }, detail: { type: 'string' } } } },
          },
        },
      },
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
    },
    ...(secured ? { security: [{ apiKey: [] }] } : {}),
  };
}
