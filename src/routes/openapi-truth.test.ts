import { Validator } from '@cfworker/json-schema';
import { describe, expect, it } from 'vitest';
import { createTestActor } from '../testing/create-test-actor.js';

interface Operation {
  readonly operationId: string;
  readonly security?: readonly Record<string, unknown>[];
  readonly parameters?: readonly { name: string; in: string; schema: Record<string, unknown> }[];
  readonly requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
  readonly responses: Record<string, { description: string; content?: Record<string, unknown> }>;
}
interface OpenApi {
  readonly servers?: readonly { url: string }[];
  readonly paths: Record<string, Record<string, Operation>>;
  readonly components: { securitySchemes?: Record<string, unknown> };
}

const KEY_ON = { API_KEY_ENABLED: 'true', API_KEY: 'k-1' };

async function documented(env: Record<string, string> = {}) {
  const app = await createTestActor({ env: { PLAYGROUND_ENABLED: 'true', ...env } });
  const document = (await (await app.request('/openapi.json')).json()) as OpenApi;
  const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
  );
  return { app, document, operations };
}

/** A request for an operation with its path parameters filled and no key. */
const requestOf = (path: string, method: string) =>
  new Request(`http://localhost${path.replace(/\{[^}]+\}/g, 'acme')}`, { method: method.toUpperCase() });

const accepts = (schema: Record<string, unknown>, value: unknown) =>
  new Validator(schema as never, '2020-12').validate(value).valid;

const parameter = (operation: Operation | undefined, name: string) =>
  operation?.parameters?.find((candidate) => candidate.name === name)?.schema ?? {};

describe('/openapi.json tells the truth (issue #27 item 2)', () => {
  it('names its server', async () => {
    const { document } = await documented();
    expect(document.servers).toEqual([expect.objectContaining({ url: '/' })]);
  });

  it('with the API key on, an operation needs the key exactly when the server answers 401 without it, and lists that 401', async () => {
    const { app, operations } = await documented(KEY_ON);
    expect(operations.length).toBeGreaterThan(10);
    for (const { path, method, operation } of operations) {
      const status = (await app.request(requestOf(path, method))).status;
      const label = `${method.toUpperCase()} ${path} → ${status}`;
      expect(operation.security, label).toEqual(status === 401 ? [{ apiKey: [] }] : []);
      if (status === 401) expect(operation.responses[401]?.description, label).toContain('missing_api_key');
    }
    expect(operations.find((entry) => entry.path === '/oauth/callback')?.operation.security).toEqual([]);
  });

  it('with the API key off, no operation asks for a key nor lists a 401', async () => {
    const { document, operations } = await documented();
    for (const { path, method, operation } of operations) {
      expect(operation.security, `${method} ${path}`).toEqual([]);
      expect(operation.responses[401], `${method} ${path}`).toBeUndefined();
    }
    expect(document.components.securitySchemes ?? {}).not.toHaveProperty('apiKey');
  });

  it('constrains X-Tenant-Id and Idempotency-Key as the server does', async () => {
    const { app, document } = await documented();
    const invoke = document.paths['/agent/invoke']?.post;
    const body = JSON.stringify({ user_identifier: 'u', session_id: 's', message: 'hi' });
    const cases: [string, string][] = [
      ['X-Tenant-Id', ''],
      ['X-Tenant-Id', 'a b'],
      ['Idempotency-Key', ' '],
      ['Idempotency-Key', 'k'.repeat(256)],
      ['Idempotency-Key', 'é'],
    ];
    for (const [name, value] of cases) {
      const response = await app.request('/agent/invoke', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', [name]: value },
        body,
      });
      expect(response.status, `${name}: ${JSON.stringify(value)}`).toBe(400);
      expect(accepts(parameter(invoke, name), value), `${name}: ${JSON.stringify(value)} in the document`).toBe(false);
    }
    expect(accepts(parameter(invoke, 'X-Tenant-Id'), 'acme')).toBe(true);
    expect(accepts(parameter(invoke, 'Idempotency-Key'), 'k'.repeat(255))).toBe(true);
  });

  it('says the body rules of an invoke the server enforces', async () => {
    const { document } = await documented();
    const body = document.paths['/agent/invoke']?.post?.requestBody?.content['application/json']?.schema ?? {};
    const branches = (body as { oneOf: Record<string, unknown>[] }).oneOf;
    expect(branches.map((branch) => branch.title)).toEqual(['ChatRequest', 'UiChatRequest', 'ApprovalsRequest']);
    const answers = branches[2]!;
    const answered = { user_identifier: 'u', session_id: 's', approvals: [{ id: 'apr_1', approved: true }] };
    expect(accepts(answers, answered)).toBe(true);
    expect(accepts(answers, { ...answered, approvals: [{ id: 'apr_1' }] }), 'an answer without approved').toBe(false);
    expect(accepts(answers, { ...answered, approvals: [] }), 'no answer').toBe(false);
    expect(accepts(answers, { ...answered, message: 'hi' }), 'a message besides').toBe(false);
    const schema = branches[0]!;
    const base = { user_identifier: 'u', session_id: 's', message: 'hi' };
    expect(accepts(schema, base)).toBe(true);
    expect(accepts(schema, { ...base, message: 'a\u0000b' }), 'NUL in message').toBe(false);
    expect(
      accepts(schema, {
        ...base,
        attachments: [{ name: 'a', mime_type: 'image/png', url: 'https://x.test/a.png', data: 'AAAA' }],
      }),
      'attachment with url and data',
    ).toBe(false);
    expect(
      accepts(schema, { ...base, attachments: [{ name: 'a', mime_type: 'image/png' }] }),
      'attachment with neither',
    ).toBe(false);
    expect(
      accepts(schema, {
        ...base,
        attachments: [{ name: 'a.png', mime_type: 'image/png', url: 'https://x.test/a.png' }],
      }),
      'image by url',
    ).toBe(true);
    expect(
      accepts(schema, { ...base, attachments: [{ name: 'a.json', mime_type: 'application/json', data: 'e30=' }] }),
      'text by data',
    ).toBe(true);
    expect(
      accepts(schema, { ...base, attachments: [{ name: 'a.pdf', mime_type: 'application/pdf', data: 'AAAA' }] }),
      'a type the model cannot take',
    ).toBe(false);
    expect(
      accepts(schema, {
        ...base,
        attachments: [{ name: 'a.txt', mime_type: 'text/plain', url: 'https://x.test/a.txt' }],
      }),
      'text by url',
    ).toBe(false);
    expect(
      accepts(schema, {
        ...base,
        role: 'system',
        attachments: [{ name: 'a.txt', mime_type: 'text/plain', data: 'AAAA' }],
      }),
      'attachments on a system message',
    ).toBe(false);
    expect(JSON.stringify((schema as { properties: Record<string, unknown> }).properties.metadata)).toContain('16 KiB');
    const aiSdk = {
      id: 'chat-1',
      messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
      trigger: 'submit-message',
    };
    expect(accepts(body, aiSdk), "the AI SDK's body").toBe(true);
    expect(accepts(body, { ...aiSdk, model: 'x' }), 'an unknown key').toBe(false);
    expect(accepts(body, { ...aiSdk, message: 'hi' }), 'both shapes at once').toBe(false);
    expect(accepts(body, { ...aiSdk, id: 'a b' }), 'a chat id the session rule refuses').toBe(false);
  });

  it('gives invoke examples (the try-it of /docs starts from them) that the schema and the server accept', async () => {
    const { app, document } = await documented();
    const content = document.paths['/agent/invoke']?.post?.requestBody?.content['application/json'] as {
      schema: Record<string, unknown>;
      examples: Record<string, { value: unknown }>;
    };
    expect(Object.keys(content.examples)).toEqual(['chat', 'useChat']);
    for (const [name, { value }] of Object.entries(content.examples)) {
      expect(accepts(content.schema, value), name).toBe(true);
      const response = await app.request('/agent/invoke', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(value),
      });
      expect(response.status, name).toBe(200);
      await response.text();
    }
  });

  it('lists the 400 and 415 of PUT /settings', async () => {
    const { app, document } = await documented();
    const responses = document.paths['/settings']?.put?.responses ?? {};
    expect(
      (await app.request('/settings', { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: '{}' })).status,
    ).toBe(415);
    expect(
      (await app.request('/settings', { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: '{' }))
        .status,
    ).toBe(400);
    expect(Object.keys(responses)).toEqual(expect.arrayContaining(['400', '415']));
  });

  it('lists 421 on every operation when the actor answers only allowed hosts', async () => {
    const app = await createTestActor({ env: { ALLOWED_HOSTS: 'actor.test' } });
    const document = (await (await app.request('/openapi.json')).json()) as OpenApi;
    expect((await app.request('http://elsewhere.test/health', { headers: { Host: 'elsewhere.test' } })).status).toBe(
      421,
    );
    for (const [path, methods] of Object.entries(document.paths))
      for (const [method, operation] of Object.entries(methods))
        expect(operation.responses[421], `${method} ${path}`).toBeDefined();
  });
});
