import { describe, expect, it } from 'vitest';
import { createTestActor } from '../testing/create-test-actor.js';

type OpenApi = {
  paths: Record<
    string,
    Record<
      string,
      { operationId: string; security?: unknown[]; responses: Record<string, { content?: Record<string, unknown> }> }
    >
  >;
  security?: unknown;
};

describe('GET /openapi.json', () => {
  it('describes /openapi.json and /docs themselves, open without a key (issue #16 item 20)', async () => {
    const app = await createTestActor({ env: { API_KEY_ENABLED: 'true', API_KEY: 'k-1' } });
    const response = await app.request('/openapi.json');
    expect(response.status).toBe(200);
    const document = (await response.json()) as OpenApi;
    expect(document.security).toEqual([{ apiKey: [] }]);
    const openApi = document.paths['/openapi.json']?.get;
    const docs = document.paths['/docs']?.get;
    expect(openApi?.responses[200]?.content).toHaveProperty(['application/json']);
    expect(docs?.responses[200]?.content).toHaveProperty(['text/html']);
    expect(openApi?.security).toEqual([]);
    expect(docs?.security).toEqual([]);
    expect((await app.request('/docs')).status).toBe(200);
  });

  it('describes every GET route the app serves at a fixed path', async () => {
    const app = await createTestActor();
    const document = (await (await app.request('/openapi.json')).json()) as OpenApi;
    const served = app.routes
      .filter((route) => route.method === 'GET' && !route.path.includes('*'))
      .map((route) => route.path.replace(/:(\w+)/g, '{$1}'));
    for (const path of new Set(served)) expect(document.paths[path]?.get, path).toBeDefined();
  });
});

describe('GET /docs (issue #29 item 8)', () => {
  const installed = { readPackageFile: async (specifier: string) => `/* ${specifier} */` };
  const absent = { readPackageFile: async () => undefined };

  it('serves Swagger UI under a nonce CSP when the runtime finds swagger-ui-dist, its files at /docs?asset=, open with a key on', async () => {
    const app = await createTestActor({ env: { API_KEY_ENABLED: 'true', API_KEY: 'k-1' } });
    const page = await app.fetch(new Request('http://localhost/docs'), installed);
    const html = await page.text();
    const nonce = /script-src 'nonce-([^']+)'/.exec(page.headers.get('content-security-policy') ?? '')?.[1];
    expect(nonce).toBeDefined();
    expect(html).toContain(`<script src="docs?asset=swagger-ui-bundle.js" nonce="${nonce}">`);
    expect(html).toContain(`<link rel="stylesheet" href="docs?asset=swagger-ui.css" nonce="${nonce}">`);
    expect(html).toContain('validatorUrl: null');
    const script = await app.fetch(new Request('http://localhost/docs?asset=swagger-ui-bundle.js'), installed);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await script.text()).toBe('/* swagger-ui-dist/swagger-ui-bundle.js */');
    const unknown = await app.fetch(new Request('http://localhost/docs?asset=../package.json'), installed);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({
      code: 'not_found',
      detail: '../package.json is not a file of Swagger UI',
    });
  });

  it('falls back to the list of operations without swagger-ui-dist (or without a runtime that reads packages)', async () => {
    const app = await createTestActor();
    for (const bindings of [absent, undefined]) {
      const page = await app.fetch(new Request('http://localhost/docs'), bindings);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("fetch('openapi.json')");
      const asset = await app.fetch(new Request('http://localhost/docs?asset=swagger-ui.css'), bindings);
      expect(asset.status).toBe(404);
    }
    expect(
      await (await app.fetch(new Request('http://localhost/docs?asset=swagger-ui.css'), absent)).json(),
    ).toMatchObject({ detail: 'swagger-ui-dist is not installed' });
  });
});

describe('/openapi.json for stateful testers (#40)', () => {
  it('links a background invoke (202) to its run, its cancel and the stats, by the id in the body', async () => {
    const app = await createTestActor();
    const document = await (await app.request('/openapi.json')).json();
    const responses = document.paths['/agent/invoke'].post.responses;
    for (const status of ['202']) {
      expect(Object.keys(responses[status].links)).toEqual(['GetRun', 'CancelRun', 'Stats']);
      expect(responses[status].links.GetRun).toMatchObject({
        operationId: 'getRun',
        parameters: { id: '$response.body#/id' },
      });
    }
    const operationIds = Object.values(document.paths).flatMap((methods) =>
      Object.values(methods as Record<string, { operationId: string }>).map((operation) => operation.operationId),
    );
    expect(operationIds).toEqual(expect.arrayContaining(['getRun', 'cancelRun', 'stats']));
  });

  it('GetRun, followed as the document says, reads the run whichever way the request named its tenant', async () => {
    const app = await createTestActor();
    const document = await (await app.request('/openapi.json')).json();
    const link = document.paths['/agent/invoke'].post.responses['202'].links.GetRun as {
      parameters: Record<string, string>;
    };
    const body = { user_identifier: 'u-1', session_id: 's-1', message: 'hello', background: true };
    const requests: { headers: Record<string, string>; body: object }[] = [
      { headers: {}, body },
      { headers: { 'X-Tenant-Id': 'acme' }, body },
      { headers: {}, body: { ...body, metadata: { tenant_id: 'globex' } } },
    ];
    for (const [index, { headers, body }] of requests.entries()) {
      const invoke = await app.request('/agent/invoke', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify({ ...body, session_id: `s-${index}` }),
      });
      expect(invoke.status).toBe(202);
      const run = (await invoke.json()) as Record<string, unknown>;
      // A runtime expression of the two kinds the links use.
      const resolve = (expression: string) =>
        expression.startsWith('$response.body#/')
          ? String(run[expression.slice('$response.body#/'.length)])
          : expression.startsWith('$response.header.')
            ? invoke.headers.get(expression.slice('$response.header.'.length))
            : null;
      const tenant = resolve(link.parameters['header.X-Tenant-Id']!);
      expect(tenant, JSON.stringify(headers)).toBe(['default', 'acme', 'globex'][index]);
      const read = await app.request(`/agent/runs/${resolve(link.parameters.id!)}`, {
        headers: { 'X-Tenant-Id': tenant! },
      });
      expect(read.status).toBe(200);
      expect(((await read.json()) as { id: string }).id).toBe(run.id);
    }
  });
});
