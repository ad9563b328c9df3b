// Schemathesis 4.25, an independent property-based tester driven by /openapi.json (issue #40 item 1):
// every check, against hello-actor and an actor with every option on (MCP, A2A, AG-UI,
// fleet mesh, panel, the n8n proxy, an OAuth provider, attachments in every chat request), open
// and with the API key. It must find nothing; the seed is pinned so a run is the same run each
// time. schemathesis.toml and hooks.py are the test setup it needs (docs/http-api.md says why).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonVenvMissing } from '../support/python-venv.js';
import type { ServeHandle } from '../../src/adapter/node/index.js';
import { MemoryStore, silentLogger, statsPanel, type ActorApp, type ActorDefinition } from '../../src/index.js';
import { listenOnLoopback, serveOnLoopback, type LoopbackServer } from '../surfaces/loopback.js';
import { startMockOAuthProvider, type MockOAuthProvider } from '../surfaces/oauth-mock-provider.js';

const run = promisify(execFile);
const HERE = import.meta.dirname;
const ROOT = resolve(HERE, '../..');
const API_KEY = 'schemathesis-key';
const MESH_KEY = 'a-mesh-key-for-the-schemathesis-test';
/**
 * Examples per operation and phase, and the phases: in `npm test`, 25 on hello-actor and 10 on the
 * every-option actor (whose A2A message bodies, with their `contains` rule, take Schemathesis about
 * a second an example to draw), and every phase but coverage (whose boundary cases do not scale
 * with the example count and take 2 to 4 minutes a run on 2 cores), so the file stays within
 * about two minutes; `npm run check:contract` is the deeper run, 100 for both and every phase
 * (docs/http-api.md).
 */
const EXAMPLES = Number(process.env.SCHEMATHESIS_EXAMPLES ?? 25);
const EVERY_OPTION_EXAMPLES = Number(process.env.SCHEMATHESIS_EXAMPLES ?? 10);
/** The deeper run (`npm run check:contract`): every phase, 100 examples, and the keyed every-option run too. */
const DEEP = process.env.SCHEMATHESIS_DEEP !== undefined;
const PHASES = process.env.SCHEMATHESIS_PHASES ?? 'examples,fuzzing,stateful';
const SEED = 40;

type CreateApp = (env: Record<string, string>, overrides: object) => ActorApp;

async function exampleApp(example: string): Promise<{ createApp: CreateApp; definition: ActorDefinition }> {
  const [{ createApp }, { default: definition }] = await Promise.all([
    import(join(ROOT, 'examples', example, 'src', 'app.ts')) as Promise<{ createApp: CreateApp }>,
    import(join(ROOT, 'examples', example, 'src', 'actor.ts')) as Promise<{ default: ActorDefinition }>,
  ]);
  return { createApp, definition };
}

let bin: string;
let workflow: LoopbackServer;
let oauthProvider: MockOAuthProvider;
const served: ServeHandle[] = [];
/** Where Schemathesis runs: it keeps its state in `.schemathesis/` of its working folder. */
const scratch = mkdtempSync(join(tmpdir(), 'actorkit-schemathesis-'));

beforeAll(async () => {
  if (pythonVenvMissing) return;
  // The wheels the environment needs are in the repository (venv.sh says where each came from):
  // a failure here is a broken install, never a reason to skip, locally or in CI.
  bin = (await run(join(HERE, 'venv.sh'), [], { encoding: 'utf8' })).stdout.trim();
  // The n8n the proxy forwards to: a real server that answers every method with JSON.
  workflow = await listenOnLoopback((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify({ ok: true }));
    });
  });
  oauthProvider = await startMockOAuthProvider();
}, 300_000);

afterAll(async () => {
  for (const server of served) await server.close();
  await workflow?.close();
  await oauthProvider?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/** Serves an example on loopback, as itself or with another definition, with the environment the mode adds. */
async function serveExample(example: string, keyed: boolean, widen?: (definition: ActorDefinition) => ActorDefinition) {
  const { createApp, definition } = await exampleApp(example);
  const env = {
    LLM_PROVIDER: 'offline',
    MESH_KEY,
    WORKFLOW_BASE_URL: workflow.url,
    OAUTH_MOCK_ISSUER: oauthProvider.issuer,
    OAUTH_MOCK_CLIENT_ID: 'actorclient',
    OAUTH_MOCK_CLIENT_SECRET: 'actor-secret',
    OAUTH_MOCK_ALLOW_INSECURE: 'true',
    ...(keyed ? { API_KEY_ENABLED: 'true', API_KEY } : {}),
  };
  const app = createApp(env, {
    store: new MemoryStore(),
    logger: silentLogger,
    ...(widen === undefined ? {} : { definition: widen(definition) }),
  });
  const server = await serveOnLoopback(app);
  served.push(server);
  return server.url;
}

/** mesh-actor (MCP, fleet mesh, AG-UI) with the panel, the n8n proxy and an OAuth provider on as well. */
const everyOption = (definition: ActorDefinition): ActorDefinition => ({
  ...definition,
  features: { ...definition.features, includePanel: true, integrationType: 'n8n' },
  panels: [statsPanel()],
  oauth: [{ provider: 'mock', title: 'Mock ID', scopes: ['openid'] }],
});

/** Runs Schemathesis on the actor at `url`; its output, and whether it found nothing. */
async function schemathesis(
  url: string,
  keyed: boolean,
  oauthProvider: string,
  examples: number,
): Promise<{ passed: boolean; output: string }> {
  const args = [
    '--config-file',
    join(HERE, 'schemathesis.toml'),
    'run',
    `${url}/openapi.json`,
    '--checks',
    'all',
    '--phases',
    PHASES,
    '--max-examples',
    String(examples),
    '--seed',
    String(SEED),
    '--workers',
    '1',
    '--no-color',
    '--header',
    `X-Mesh-Key: ${MESH_KEY}`,
    ...(keyed ? ['--header', `X-API-Key: ${API_KEY}`] : []),
  ];
  try {
    const { stdout } = await run(join(bin, 'schemathesis'), args, {
      encoding: 'utf8',
      cwd: scratch,
      timeout: 600_000,
      maxBuffer: 64 * 1024 * 1024,
      // hooks.py gives valid cases what only the server can issue (an OAuth state, an
      // Mcp-Session-Id) or what must differ per case (an Idempotency-Key); it reads the actor, its
      // keys and its provider here.
      env: {
        ...process.env,
        SCHEMATHESIS_HOOKS: join(HERE, 'hooks.py'),
        ACTORKIT_ACTOR_URL: url,
        ACTORKIT_API_KEY: keyed ? API_KEY : '',
        ACTORKIT_MESH_KEY: MESH_KEY,
        ACTORKIT_OAUTH_PROVIDER: oauthProvider,
      },
    });
    return { passed: true, output: stdout };
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    return { passed: false, output: `${stdout}\n${stderr}` };
  }
}

describe.skipIf(pythonVenvMissing)('Schemathesis, every check, finds nothing (issue #40)', () => {
  for (const keyed of [false, true]) {
    it(`hello-actor, ${keyed ? 'with the API key' : 'open'}`, async () => {
      await expectNothingFound(await serveExample('hello-actor', keyed), keyed, '', EXAMPLES);
    }, 600_000);
  }
  // With the key only in the deeper run: 70 s more on 2 cores, for the 401s the keyed hello-actor
  // run already checks on the routes every actor has.
  for (const keyed of [false, true]) {
    it.runIf(!keyed || DEEP)(
      `every option, ${keyed ? 'with the API key' : 'open'}`,
      async () => {
        const url = await serveExample('mesh-actor', keyed, everyOption);
        await expectNothingFound(url, keyed, 'mock', EVERY_OPTION_EXAMPLES);
      },
      900_000,
    );
  }
});

/** Runs Schemathesis on the actor at `url` and expects no failure; SCHEMATHESIS_LOG prints its report. */
async function expectNothingFound(url: string, keyed: boolean, oauthProvider: string, examples: number) {
  const { passed, output } = await schemathesis(url, keyed, oauthProvider, examples);
  if (process.env.SCHEMATHESIS_LOG !== undefined) console.log(output);
  expect(passed, output.slice(-12_000)).toBe(true);
}
