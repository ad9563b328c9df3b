import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { renderActor } from '../../cli/render/render-actor.js';
import { DEFAULT_PORT } from '../../src/adapter/serve-options.js';
import { MemoryStore, silentLogger } from '../../src/index.js';

const ROOT = resolve(import.meta.dirname, '../..');
const EXAMPLES = join(ROOT, 'examples');
const scratch = mkdtempSync(join(tmpdir(), 'actorkit-closing-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Values for every variable a surface may need, so an app with all options starts. */
const SURFACE_ENV: Record<string, string> = {
  MESH_KEY: 'a-mesh-key-for-the-tests',
  WORKFLOW_BASE_URL: 'http://127.0.0.1:9',
};

interface Example {
  readonly name: string;
  readonly answers: Record<string, unknown>;
  readonly message: string;
}

const rendered = new Map<string, Promise<Example>>();

/** Renders an example's answers again, once (examples-drift proves the example is that render), and keeps what `new` prints. */
function closingMessageOf(name: string): Promise<Example> {
  if (!rendered.has(name)) rendered.set(name, renderExample(name));
  return rendered.get(name) as Promise<Example>;
}

async function renderExample(name: string): Promise<Example> {
  const { answers } = parse(readFileSync(join(EXAMPLES, name, '.actorkit-answers.yml'), 'utf8')) as {
    answers: Record<string, unknown>;
  };
  const { actor_name: actorName, ...rest } = answers;
  const result = await renderActor({
    actorName: String(actorName),
    targetDir: join(scratch, name),
    defaults: true,
    data: Object.entries(rest).map(([key, value]) => `${key}=${String(value)}`),
    io: { interactive: false, cwd: scratch },
  });
  if (result.status !== 'ok') throw new Error(JSON.stringify(result));
  return { name, answers, message: result.closingMessage };
}

/** The `METHOD /path` lines of the message's route list. */
function printedRoutes(message: string): { method: string; path: string }[] {
  return [...message.matchAll(/^ {2}(GET|POST|PUT|PATCH|DELETE|OPTIONS|ANY) +(\/\S*)/gm)].map((match) => ({
    method: match[1] as string,
    path: match[2] as string,
  }));
}

/** The variable names of the message's environment list. */
function printedVariables(message: string): string[] {
  const section = /^Environment your options need.*\n((?: {2}\S.*\n?)*)/m.exec(message)?.[1] ?? '';
  return [...section.matchAll(/^ {2}([A-Z_]+) /gm)].map((match) => match[1] as string);
}

async function startExample(name: string, env: Record<string, string>) {
  const { createApp } = (await import(join(EXAMPLES, name, 'src', 'app.ts'))) as {
    createApp: (
      env: Record<string, string>,
      overrides: object,
    ) => {
      request: (path: string, init?: RequestInit) => Promise<Response> | Response;
      actor: { start(): Promise<void> };
    };
  };
  const app = createApp({ LLM_PROVIDER: 'offline', ...env }, { store: new MemoryStore(), logger: silentLogger });
  await app.actor.start();
  return app;
}

async function documentedOperations(app: Awaited<ReturnType<typeof startExample>>): Promise<string[]> {
  const document = (await (await app.request('/openapi.json')).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.keys(operations).map((method) => `${method} ${path}`),
  );
}

/** A request for a printed route: placeholders filled, `ANY` as GET, the mesh key sent. */
function concreteRequest(route: { method: string; path: string }): [string, RequestInit] {
  const path = route.path.replace(/\{[^}]+\}/g, 'news').replace(/\*$/, 'webhook/try');
  const method = route.method === 'ANY' ? 'GET' : route.method;
  const headers: Record<string, string> = {
    'X-Mesh-Key': SURFACE_ENV.MESH_KEY as string,
    'Content-Type': 'application/json',
  };
  return [path, { method, headers, ...(method === 'POST' ? { body: '{}' } : {}) }];
}

const examples = readdirSync(EXAMPLES).filter((name) => statSync(join(EXAMPLES, name)).isDirectory());

describe("new's closing message tells the truth about the actor it rendered", () => {
  it('covers every surface option across the examples', async () => {
    const all = await Promise.all(examples.map(closingMessageOf));
    expect(all.some((example) => example.answers.include_panel === true)).toBe(true);
    expect(all.some((example) => example.answers.fleet_mesh === true)).toBe(true);
    expect(all.some((example) => example.answers.integration_type === 'n8n')).toBe(true);
    expect(all.some((example) => example.answers.expose_mcp === true)).toBe(true);
    expect(
      all.some(
        (example) =>
          example.answers.include_panel === false &&
          example.answers.fleet_mesh === false &&
          example.answers.integration_type === 'none',
      ),
    ).toBe(true);
  });

  for (const name of examples) {
    it(`${name}: the printed routes are exactly those its options add, and each answers`, async () => {
      const { message, answers } = await closingMessageOf(name);
      const routes = printedRoutes(message);
      const app = await startExample(name, SURFACE_ENV);
      const bare = await startExample('hello-actor', {});
      const always = new Set(await documentedOperations(bare));
      const optionOperations = (await documentedOperations(app)).filter((operation) => !always.has(operation));
      expect(routes.length, `${message}\n\nadded: ${optionOperations.join(', ')}`).toBe(optionOperations.length);
      if (answers.include_panel === false && answers.fleet_mesh === false && answers.integration_type === 'none') {
        expect(message).toContain('your options add none');
      }
      for (const route of routes) {
        const [path, init] = concreteRequest(route);
        const served = await app.request(path, init);
        expect([404, 405], `${route.method} ${route.path} → ${served.status}`).not.toContain(served.status);
        expect((await bare.request(path, init)).status, `${route.path} is not served without the option`).toBe(404);
      }
    });

    it(`${name}: the printed variables are those it cannot start without, and step 1 sets them`, async () => {
      const { message } = await closingMessageOf(name);
      const variables = printedVariables(message);
      const refusals = await Promise.all(
        Object.keys(SURFACE_ENV).map(async (variable) => {
          const { [variable]: _left, ...rest } = SURFACE_ENV;
          return (
            await startExample(name, rest).then(
              () => '',
              (error: Error) => error.message,
            )
          ).includes(variable)
            ? variable
            : undefined;
        }),
      );
      expect(variables).toEqual(refusals.filter((variable) => variable !== undefined));
      const firstStep = /^ {2}1\. (.*)$/m.exec(message)?.[1] ?? '';
      for (const variable of variables) expect(firstStep).toMatch(new RegExp(`\\b${variable}=\\S+ `));
      expect(firstStep).toMatch(/^cd \S+ && npm install && (\S+=\S+ )*npm start$/);
    });

    it(`${name}: the steps come in the order that works, and the printed request calls the domain tool`, async () => {
      const { message, answers } = await closingMessageOf(name);
      const install = message.indexOf('npm install && ');
      const curl = message.indexOf(`curl -s localhost:${DEFAULT_PORT}/agent/invoke`);
      const validate = message.indexOf('npm run validate');
      expect(install).toBeGreaterThan(-1);
      expect(curl).toBeGreaterThan(install);
      expect(validate).toBeGreaterThan(curl);
      expect(message.indexOf('  4. npm test ')).toBeGreaterThan(validate);
      expect(message.indexOf('  5. npm run dev ')).toBeGreaterThan(validate);
      const body = /-d '(.*)'$/m.exec(message)?.[1];
      expect(body).toBeDefined();
      const app = await startExample(name, SURFACE_ENV);
      const response = await app.request('/agent/invoke', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: body as string,
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({
        model: 'offline',
        tool_calls: [{ name: `${String(answers.domain_module)}_lookup`, status: 'ok' }],
      });
    });
  }
});
