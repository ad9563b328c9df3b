// The local platform end to end, with real processes: two actors rendered from the template by
// the built CLI into fresh folders and installed with npm, hosted by the built `actorkit platform`
// with two replicas each on PostgreSQL; then, through the platform only, what the issue asks of
// it: REST chat and status on the edge, a tool call by the official MCP client, settings refused,
// a peer read between the two actors, a foreign mesh key refused, the panel through the owner's
// relay, and a replica killed mid-load whose totals reconcile with the answered chats.
import { spawn } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlatformActorView } from '../../platform/gateway/platform-actors.js';
import type { ReconciliationReport } from '../../platform/gateway/reconciliation-report.js';
import type { HostedActorSummary } from '../../platform/platform-ready.js';
import { createPeerClient } from '../../src/surfaces/mesh/peer-client.js';
import { PeerRequestError } from '../../src/surfaces/mesh/peer-request-error.js';
import { ACTORKIT_BINARY } from '../cli/support/rendered-actor.js';
import { temporaryFolder } from '../cli/support/template-repo.js';
import { ensureBuilt } from '../support/built-package.js';
import { eventually, freshDatabase, startPlatform, type PlatformProcess } from './platform-actors.js';
import { platformDatabaseUrl } from './support/postgres-required.js';

const folder = temporaryFolder('actorkit-scenario-');
/** The default mesh group's key, from the platform's secrets file: it must never be printed. */
const MESH_KEY = 'scenario-group-mesh-key-never-printed-0123456789';
let database: { url: string; drop(): Promise<void> };
let platform: PlatformProcess;

/** Runs a command to its end; rejects with its output when it fails. */
function run(command: string, args: readonly string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, CI: 'true' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    for (const stream of [child.stdout, child.stderr])
      stream.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0
        ? resolve(output)
        : reject(new Error(`${command} ${args.join(' ')} in ${cwd} exited ${code}:\n${output}`)),
    );
  });
}

/** A tool of the weather actor, written by the test: a peer read of the sibling news actor over the fleet mesh. */
const NEWS_BRIEF_TOOL = `import * as v from 'valibot';
import { ActorTool, createPeerClient } from 'actorkit';

/** Asks the sibling news actor, through its service address and the group's mesh key, what it knows. */
export function newsBriefTool(): ActorTool {
  return new ActorTool({
    name: 'weather_news_brief',
    description: 'Asks the sibling news actor what it knows about a topic (a peer read over the fleet mesh).',
    readOnly: true,
    argsSchema: v.object({ topic: v.pipe(v.string(), v.minLength(1), v.maxLength(200)) }),
    runAsync: ({ topic }, context) => {
      const news = createPeerClient({
        baseUrl: \`http://\${process.env.NEWS_SERVICE_HOST}:\${process.env.NEWS_SERVICE_PORT}\`,
        domain: 'news',
        meshKey: process.env.MESH_KEY ?? '',
      });
      return news.get(\`/lookup/\${encodeURIComponent(topic)}\`, { requestId: context.requestId });
    },
  });
}
`;

/** Renders the two actors with the built CLI, installs each with npm, and gives weather its peer tool and `mcp` on its edge. */
async function renderActors(): Promise<void> {
  const actorkit = (args: readonly string[]) => run(process.execPath, [ACTORKIT_BINARY, ...args], folder.dir);
  await actorkit(['new', 'news', '--defaults', '--data', 'include_panel=true', '--data', 'fleet_mesh=true']);
  await actorkit(['new', 'weather', '--defaults', '--data', 'fleet_mesh=true', '--data', 'expose_mcp=true']);
  // actorkit itself is vendored (vendor/actorkit-<version>.tgz); the rest comes from npm's cache when it has it.
  await Promise.all(
    ['news', 'weather'].map((name) =>
      run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], join(folder.dir, name)),
    ),
  );

  const weather = join(folder.dir, 'weather');
  writeFileSync(join(weather, 'src', 'weather', 'news-brief-tool.ts'), NEWS_BRIEF_TOOL);
  const toolsIndex = join(weather, 'src', 'agent', 'tools', 'index.ts');
  const tools = readFileSync(toolsIndex, 'utf8');
  expect(tools).toContain('return [...weatherTools(client)];');
  writeFileSync(
    toolsIndex,
    `import { newsBriefTool } from '../../weather/news-brief-tool.js';\n${tools.replace('return [...weatherTools(client)];', 'return [...weatherTools(client), newsBriefTool()];')}`,
  );
  const manifestPath = join(weather, 'package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  manifest.actorkit.external_api = { operations: ['chat', 'status', 'health', 'mcp'] };
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  await run(join(weather, 'node_modules', '.bin', 'actorkit'), ['validate', '.', '--write'], weather);
}

beforeAll(async () => {
  const databaseUrl = platformDatabaseUrl();
  const started = Date.now();
  ensureBuilt();
  database = await freshDatabase(databaseUrl);
  await renderActors();
  console.info(`scenario: rendered and installed in ${Date.now() - started} ms`);
  const secrets = join(folder.dir, 'secrets.env');
  writeFileSync(secrets, `MESH_KEY=${MESH_KEY}\n`, { mode: 0o600 });
  platform = await startPlatform(
    [
      'news',
      'weather',
      '--replicas',
      '2',
      '--database-url',
      database.url,
      '--secrets',
      secrets,
      '--state-dir',
      join(folder.dir, 'state'),
    ],
    {
      cwd: folder.dir,
      env: { ...process.env, DATABASE_URL: undefined },
    },
  );
  console.info(`scenario: the platform up after ${Date.now() - started} ms`);
}, 170_000);

afterAll(async () => {
  if (platform?.child.exitCode === null) {
    platform.child.kill('SIGTERM');
    await platform.exited;
  }
  await database?.drop();
  folder.cleanup();
}, 60_000);

function hosted(ref: string): HostedActorSummary {
  const found = platform.ready.actors.find((actor) => actor.ref === ref);
  if (found === undefined) throw new Error(`no hosted actor ${ref}`);
  return found;
}

const edgeKey = (ref: string) => hosted(ref).edgeKey as string;
const owner = () => ({ Authorization: `Bearer ${platform.ready.ownerToken}` });

/** A REST chat through the edge, as a client of the platform's public API sends it. */
function chat(ref: string, message: string, session: string): Promise<Response> {
  return fetch(`${hosted(ref).edgeUrl}chat`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-API-Key': edgeKey(ref) },
    body: JSON.stringify({ user_identifier: 'scenario', session_id: session, message }),
  });
}

/** The chats each instance answered with a 2xx to this test, through the edge. */
const answeredByClient = new Map<string, number>();
async function chatCounted(ref: string, message: string, session: string): Promise<Response> {
  const answer = await chat(ref, message, session);
  if (answer.ok) answeredByClient.set(ref, (answeredByClient.get(ref) ?? 0) + 1);
  return answer;
}

async function ownerJson<T>(path: string): Promise<T> {
  const answer = await fetch(`${platform.ready.url}${path}`, { headers: owner() });
  expect(answer.status).toBe(200);
  return (await answer.json()) as T;
}

describe('two actors from the template on the local platform, two replicas each on PostgreSQL', () => {
  it('is up: every replica ready, the dashboard link, the edge URLs and keys, the panel through the relay, no secret printed', () => {
    const { ready } = platform;
    expect(ready.actors.map((actor) => actor.ref)).toEqual(['news', 'weather']);
    for (const actor of ready.actors) {
      expect(actor.replicas.map((replica) => replica.state)).toEqual(['ready', 'ready']);
      expect(actor.database).toBe('postgres');
      expect(actor.meshGroup).toBe('default');
      expect(actor.edgeKey).toMatch(/^akedge_/);
    }
    expect(ready.dashboardUrl).toBe(`${ready.url}/?token=${ready.ownerToken}`);
    expect(hosted('weather').edgeOperations).toEqual(['chat', 'status', 'health', 'mcp']);
    expect(hosted('news').edgeOperations).toEqual(['chat', 'status', 'health']);
    expect(hosted('news').panelUrls).toEqual([`${ready.url}/relay/news/panel/stats`]);
    expect(`${JSON.stringify(ready)}${platform.stderr()}`).not.toContain(MESH_KEY);
  });

  it('answers a chat and a status by REST through the edge', async () => {
    const answer = await chatCounted('news', 'hello from the edge', 'rest-1');
    expect(answer.status).toBe(200);
    const reply = (await answer.json()) as { model: string; message: { content: string } };
    expect(reply.model).toBe('offline');
    expect(reply.message.content).toContain('You said: hello from the edge');
    const status = await fetch(`${hosted('news').edgeUrl}status`, { headers: { 'X-API-Key': edgeKey('news') } });
    expect(status.status).toBe(200);
    expect(await status.json()).toMatchObject({ tenant_id: 'owner', invocations: 1, errors: 0 });
  });

  it('calls a tool with the official MCP client through the edge, with the edge key', async () => {
    const client = new Client({ name: 'scenario', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${hosted('weather').edgeUrl}mcp`), {
        requestInit: { headers: { 'X-API-Key': edgeKey('weather') } },
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(
        expect.arrayContaining(['chat', 'weather_lookup', 'weather_news_brief']),
      );
      const looked = await client.callTool({ name: 'weather_lookup', arguments: { topic: 'rain' } });
      expect(looked.isError).toBeFalsy();
      expect(JSON.stringify(looked.content)).toContain('what weather knows about rain');
    } finally {
      await client.close();
    }
  });

  it('refuses settings through the edge with 403 problem+json, key or not', async () => {
    for (const headers of [{ 'X-API-Key': edgeKey('news') }, {}] as Record<string, string>[]) {
      const answer = await fetch(`${hosted('news').edgeUrl}settings`, {
        method: 'PUT',
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: '{}',
      });
      expect(answer.status).toBe(403);
      expect(answer.headers.get('content-type')).toContain('application/problem+json');
      expect(await answer.json()).toMatchObject({ status: 403, code: 'never_exposed' });
    }
  });

  it("reads the sibling through the mesh: weather's tool asks news, and the reply carries news's answer", async () => {
    const answer = await chatCounted('weather', 'use tool weather_news_brief with {"topic": "storms"}', 'peer-1');
    expect(answer.status).toBe(200);
    const reply = (await answer.json()) as {
      tool_calls: { name: string; status: string; output: unknown }[];
      message: { content: string };
    };
    expect(reply.tool_calls).toEqual([expect.objectContaining({ name: 'weather_news_brief', status: 'ok' })]);
    expect(reply.tool_calls[0]?.output).toMatchObject({
      topic: 'storms',
      text: expect.stringContaining('what news knows about storms'),
    });
    expect(reply.message.content).toContain('what news knows about storms');
  });

  it("refuses a foreign mesh key at the sibling's service address, and accepts the group's", async () => {
    const baseUrl = hosted('news').serviceUrl;
    const foreign = createPeerClient({ baseUrl, domain: 'news', meshKey: 'a-key-of-another-mesh-group-0123456789' });
    const refused = await foreign.check().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(PeerRequestError);
    expect(refused).toMatchObject({ code: 'peer_rejected', peerStatus: 401, peerCode: 'invalid_mesh_key' });
    const member = createPeerClient({ baseUrl, domain: 'news', meshKey: MESH_KEY });
    expect(await member.get('/lookup/tides')).toMatchObject({ topic: 'tides' });
  });

  it("serves news's panel through the relay with the owner's token, and refuses the edge key", async () => {
    const [panelUrl] = hosted('news').panelUrls;
    const page = await fetch(panelUrl as string, { headers: owner() });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const data = await fetch(`${panelUrl}/data`, { headers: owner() });
    expect(data.status).toBe(200);
    expect(JSON.stringify(await data.json())).toContain('invocations');
    const withEdgeKey = await fetch(panelUrl as string, { headers: { 'X-API-Key': edgeKey('news') } });
    expect(withEdgeKey.status).toBe(401);
    expect(await withEdgeKey.json()).toMatchObject({ code: 'missing_owner_credentials' });
  });

  it('restarts a replica killed with kill -9 mid-load, and reconciles /stats with the answered chats exactly', async () => {
    const WORKERS = 6;
    const TURNS = 25;
    const failed: { session: string; status: number; code: string | undefined }[] = [];
    const load = async (worker: number) => {
      for (let turn = 0; turn < TURNS; turn += 1) {
        const session = `load-${worker}-${turn}`;
        const answer = await chatCounted('news', `turn ${turn}`, session);
        const body = (await answer.json()) as { code?: string };
        if (!answer.ok) failed.push({ session, status: answer.status, code: body.code });
      }
    };
    const actorsView = () => ownerJson<PlatformActorView[]>('/platform/actors');
    const victim = (await actorsView()).find((actor) => actor.ref === 'news')?.replicas[1]?.pid as number;
    const running = Promise.all(Array.from({ length: WORKERS }, (_, worker) => load(worker)));
    await eventually(
      'a third of the load answered',
      () => (answeredByClient.get('news') ?? 0) >= (WORKERS * TURNS) / 3,
      60_000,
    );
    process.kill(victim, 'SIGKILL');
    await running;
    await eventually(
      'the killed replica restarted and ready',
      async () => {
        const replica = (await actorsView()).find((actor) => actor.ref === 'news')?.replicas[1];
        return replica?.state === 'ready' && replica.restarts === 1 && replica.pid !== victim;
      },
      30_000,
    );
    expect(platform.stderr()).toContain(`news replica 1 (pid ${victim}) exited with signal SIGKILL`);
    // Both replicas answer again, the restarted one included.
    for (let turn = 0; turn < 4; turn += 1)
      expect((await chatCounted('news', 'after the restart', `after-${turn}`)).status).toBe(200);

    // A chat the killed replica held is answered 502 replica_unavailable: never 2xx, so never answered.
    // Under a loaded machine the gateway may also find, for an instant, no replica ready (the
    // survivor's probe missed once while the victim was down): 503 no_ready_replica, refused
    // before it was forwarded, so never answered either (seen once in a full run on 2 cores).
    for (const failure of failed)
      expect([
        { status: 502, code: 'replica_unavailable' },
        { status: 503, code: 'no_ready_replica' },
      ]).toContainEqual({ status: failure.status, code: failure.code });
    // Of those, the ones whose turn the replica had committed before it died are counted in /stats.
    const committed = await committedSessions(
      'news',
      failed.map((failure) => failure.session),
    );
    expect(await committedSessions('news', ['after-0', 'never-sent'])).toEqual(['after-0']);

    const report = await ownerJson<ReconciliationReport>('/platform/reconciliation?refresh=true');
    const news = report.actors.find((actor) => actor.ref === 'news');
    const answered = answeredByClient.get('news') ?? 0;
    expect(answered).toBe(WORKERS * TURNS + 1 + 4 - failed.length);
    expect(news).toMatchObject({ answered, counted: answered + committed.length, in_flight: 0 });
    expect(news?.replicas.map((replica) => replica.restarts)).toEqual([0, 1]);
    // The restart is drift of the read that first saw it (the platform reads every 5 s, so maybe an earlier one); every read keeps it in events.
    expect(report.events).toEqual(
      expect.arrayContaining([expect.objectContaining({ ref: 'news', kind: 'replica_restarted', replica: 1 })]),
    );
    expect(news?.drift.filter((drift) => drift.kind !== 'replica_restarted').map((drift) => drift.kind)).toEqual(
      committed.length === 0 ? [] : ['count_mismatch'],
    );
    const weather = report.actors.find((actor) => actor.ref === 'weather');
    expect(weather).toMatchObject({
      answered: answeredByClient.get('weather'),
      counted: answeredByClient.get('weather'),
      drift: [],
    });
    console.info(
      `scenario: ${answered} chats answered through the edge, ${failed.length} refused 502 at the kill, ${committed.length} of them committed (count_mismatch)`,
    );
  }, 120_000);

  it('keeps a rotated edge key in the state folder (0600), where the next run reads it; the old key is refused', async () => {
    const old = edgeKey('weather');
    expect(readFileSync(hosted('weather').edgeKeyFile as string, 'utf8').trim()).toBe(old);
    const rotated = await fetch(`${platform.ready.url}/platform/actors/weather/edge-key`, {
      method: 'POST',
      headers: owner(),
    });
    expect(rotated.status).toBe(200);
    const { edge_key: fresh } = (await rotated.json()) as { edge_key: string };
    expect(fresh).not.toBe(old);
    expect(readFileSync(hosted('weather').edgeKeyFile as string, 'utf8').trim()).toBe(fresh);
    expect(statSync(hosted('weather').edgeKeyFile as string).mode & 0o777).toBe(0o600);
    const withOld = await fetch(`${hosted('weather').edgeUrl}health`, { headers: { 'X-API-Key': old } });
    expect(withOld.status).toBe(401);
    expect((await fetch(`${hosted('weather').edgeUrl}health`, { headers: { 'X-API-Key': fresh } })).status).toBe(200);
  });

  it('drains on SIGTERM and exits 0', async () => {
    platform.child.kill('SIGTERM');
    expect(await platform.exited).toBe(0);
    expect(platform.stderr()).toContain('actorkit platform: stopped');
  }, 60_000);
});

/** The sessions among `sessions` whose turn the actor's PostgreSQL schema counted (one session per chat). */
async function committedSessions(ref: string, sessions: readonly string[]): Promise<string[]> {
  if (sessions.length === 0) return [];
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const rows = await client.query<{ session_id: string }>(
      `select session_id from actorkit_${ref}.actorkit_stats_sessions where session_id = any($1)`,
      [sessions],
    );
    return rows.rows.map((row) => row.session_id);
  } finally {
    await client.end();
  }
}
