import { chmodSync, cpSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporaryFolder } from '../cli/support/template-repo.js';
import { ensureBuilt } from '../support/built-package.js';
import { ACTORKIT_BINARY } from '../cli/support/rendered-actor.js';
import { spawnSync } from 'node:child_process';
import {
  eventually,
  freshDatabase,
  renderBuildableActor,
  runPlatformToEnd,
  startPlatform,
  type PlatformProcess,
} from './platform-actors.js';
import { platformDatabaseUrl } from './support/postgres-required.js';

const folder = temporaryFolder('actorkit-platform-');
/** Where the replicas and service addresses of the main run listen (`--replica-ports`). */
const REPLICA_PORTS = '39100-39199';
let database: { url: string; drop(): Promise<void> };
let alpha: string;
let beta: string;

beforeAll(async () => {
  ensureBuilt();
  database = await freshDatabase(platformDatabaseUrl());
  alpha = renderBuildableActor(folder.dir, 'alpha');
  beta = renderBuildableActor(folder.dir, 'beta', ['fleet_mesh=true']);
}, 120_000);

afterAll(async () => {
  await database?.drop();
  folder.cleanup();
});

/** The platform's own environment for a test: this process's, without a DATABASE_URL of its own. */
function platformEnv(extra: Record<string, string> = {}): Record<string, string | undefined> {
  return { ...process.env, DATABASE_URL: undefined, ...extra };
}

/** The secret of the platform run whose state folder is `state` (replaced at each run, mode 0600). */
function platformSecret(state = join(folder.dir, 'state')): string {
  return readFileSync(join(state, 'platform-secret'), 'utf8').trim();
}

/** A fetch to a service address or a replica as the platform makes it: with the run's secret. */
function asPlatform(url: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('X-Platform-Secret', platformSecret());
  return fetch(url, { ...init, headers });
}

async function instanceOf(serviceUrl: string): Promise<string> {
  const answer = await asPlatform(`${serviceUrl}/health`);
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { instance_id: string }).instance_id;
}

/** Runs curl (`-sS`, the status, content type and body); the request as the user types it. */
function curl(args: readonly string[]): { status: number; contentType: string; body: string } {
  const run = spawnSync('curl', ['-sS', '-o', '-', '-w', '\n%{http_code} %{content_type}', ...args], {
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  const lines = run.stdout.split('\n');
  const [status = '0', contentType = ''] = (lines.pop() ?? '').split(' ');
  return { status: Number(status), contentType, body: lines.join('\n') };
}

/** A process's resident set size in kB, from /proc. */
function residentKilobytes(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('actorkit platform with two actors, two replicas each, on PostgreSQL', () => {
  let platform: PlatformProcess;
  const actor = (ref: string) => {
    const found = platform.ready.actors.find((candidate) => candidate.ref === ref);
    if (found === undefined) throw new Error(`no actor ${ref}`);
    return found;
  };

  beforeAll(async () => {
    platform = await startPlatform(
      [
        alpha,
        beta,
        '--replicas',
        '2',
        '--database-url',
        database.url,
        '--state-dir',
        join(folder.dir, 'state'),
        '--replica-ports',
        REPLICA_PORTS,
      ],
      {
        cwd: folder.dir,
        env: platformEnv({ LLM_BASE_URL: 'http://127.0.0.1:9/v1', WEATHER_TOKEN: 'not-passed-on' }),
      },
    );
  }, 180_000);

  afterAll(async () => {
    if (platform?.child.exitCode === null) {
      platform.child.kill('SIGKILL');
      for (const replica of platform.ready.actors.flatMap((hosted) => hosted.replicas))
        if (replica.pid !== undefined && alive(replica.pid)) process.kill(replica.pid, 'SIGKILL');
    }
  });

  it('is up with every replica ready, one schema per actor, the edge URL and the creator-hub steps', () => {
    expect(platform.ready.actors.map((hosted) => hosted.ref)).toEqual(['alpha', 'beta']);
    for (const hosted of platform.ready.actors) {
      expect(hosted.database).toBe('postgres');
      expect(hosted.replicas.map((replica) => replica.state)).toEqual(['ready', 'ready']);
      expect(hosted.edgeUrl).toBe(`${platform.ready.url}/api/v1/k/${hosted.ref}/`);
      expect(hosted.registrationSteps[0]).toBe(`Open ${platform.ready.url}/home/creator/register-actor`);
    }
    expect(actor('beta').meshGroup).toBe('default');
    expect(actor('alpha').meshGroup).toBeUndefined();
  });

  it('listens on --replica-ports: every replica and service address in the range', () => {
    const urls = platform.ready.actors.flatMap((hosted) => [
      hosted.serviceUrl,
      ...hosted.replicas.map((replica) => replica.url),
    ]);
    expect(urls).toHaveLength(6);
    for (const url of urls) {
      const port = Number(new URL(url).port);
      expect(port, url).toBeGreaterThanOrEqual(39100);
      expect(port, url).toBeLessThanOrEqual(39199);
    }
  });

  it('answers round-robin over the two replicas, which share one count in PostgreSQL', async () => {
    const { serviceUrl } = actor('alpha');
    const answered = [];
    for (let turn = 0; turn < 4; turn++) answered.push(await instanceOf(serviceUrl));
    expect(new Set(answered)).toEqual(new Set(['alpha-0', 'alpha-1']));
    for (let turn = 1; turn < answered.length; turn++) expect(answered[turn]).not.toBe(answered[turn - 1]);

    for (let turn = 0; turn < 2; turn++) {
      const reply = await asPlatform(`${serviceUrl}/agent/invoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ user_identifier: 'u', session_id: `s${turn}`, message: 'hi' }),
      });
      expect(reply.status).toBe(200);
    }
    const first = (await (await asPlatform(`${serviceUrl}/stats`)).json()) as { invocations: number };
    const second = (await (await asPlatform(`${serviceUrl}/stats`)).json()) as { invocations: number };
    expect([first.invocations, second.invocations]).toEqual([2, 2]);
  });

  it('runs the replicas in platform mode: PUT /settings is 403', async () => {
    const answer = await asPlatform(`${actor('alpha').serviceUrl}/settings`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(answer.status).toBe(403);
    expect(((await answer.json()) as { code: string }).code).toBe('settings_managed_by_platform');
  });

  it("sets a platform-managed setting from the platform's environment, and passes nothing else of it", async () => {
    const settings = (await (await asPlatform(`${actor('alpha').serviceUrl}/settings`)).json()) as {
      settings?: Record<string, unknown>;
    } & Record<string, unknown>;
    expect(settings.settings ?? settings).toMatchObject({ llm_base_url: 'http://127.0.0.1:9/v1' });
    expect(JSON.stringify(settings)).not.toContain('not-passed-on');
  });

  it("gives a mesh actor its group's key, kept 0600 in the state folder; a foreign key is refused", async () => {
    const keyFile = join(folder.dir, 'state', 'mesh-keys', 'default.key');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const key = readFileSync(keyFile, 'utf8').trim();
    const peerCheck = `${actor('beta').serviceUrl}/api/beta/_peer_check`;
    expect((await fetch(peerCheck, { headers: { 'X-Mesh-Key': key } })).status).toBe(200);
    expect((await fetch(peerCheck, { headers: { 'X-Mesh-Key': 'a-foreign-group-key-0123456789' } })).status).toBe(401);
    expect(platform.stderr()).not.toContain(key);
  });

  it('closes its side doors: a service address or a replica answers only the platform and mesh reads with the key', async () => {
    const secretFile = join(folder.dir, 'state', 'platform-secret');
    expect(statSync(secretFile).mode & 0o777).toBe(0o600);
    const secret = platformSecret();
    expect(platform.stderr()).not.toContain(secret);
    expect(JSON.stringify(platform.ready)).not.toContain(secret);
    const { serviceUrl, replicas, edgeUrl, edgeKey } = actor('alpha');
    const port = new URL(serviceUrl).port;
    // DNS rebinding: a page at attacker.example that re-pointed its name to 127.0.0.1.
    const rebound = curl([`${serviceUrl}/settings`, '-H', `Host: attacker.example:${port}`]);
    expect(rebound.status).toBe(403);
    expect(rebound.contentType).toBe('application/problem+json');
    expect(JSON.parse(rebound.body)).toMatchObject({ code: 'not_from_platform' });
    const foreignOrigin = curl([
      `${serviceUrl}/agent/invoke`,
      '-H',
      'Origin: http://attacker.example',
      '-H',
      'content-type: application/json',
      '--data',
      '{"user_identifier":"u","session_id":"s","message":"hi"}',
    ]);
    expect(foreignOrigin.status).toBe(403);
    for (const replica of replicas) {
      const direct = curl([`${replica.url}/stats`]);
      expect(direct.status, replica.url).toBe(403);
      expect(JSON.parse(direct.body)).toMatchObject({ code: 'not_from_platform' });
      expect(curl([`${replica.url}/stats`, '-H', `X-Platform-Secret: ${secret}`]).status).toBe(200);
    }
    expect(curl([`${serviceUrl}/stats`]).status).toBe(403);
    expect(curl([`${serviceUrl}/stats`, '-H', 'X-Mesh-Key: not-the-key']).status).toBe(403);
    const betaStats = `${actor('beta').serviceUrl}/stats`;
    const meshKey = readFileSync(join(folder.dir, 'state', 'mesh-keys', 'default.key'), 'utf8').trim();
    expect(curl([betaStats, '-H', `X-Mesh-Key: ${meshKey}`]).status, 'the mesh key opens mesh reads only').toBe(403);
    expect(curl([`${edgeUrl}health`, '-H', `X-API-Key: ${edgeKey}`]).status).toBe(200);
  });

  it("passes an `Expect: 100-continue` request through the edge (curl's own for a body over 1 MB) and the replica's 413 for a body too large, streamed", async () => {
    const { edgeUrl, edgeKey } = actor('alpha');
    const chat = [`${edgeUrl}chat`, '-H', `X-API-Key: ${edgeKey}`, '-H', 'content-type: application/json'];
    const answered = curl([
      ...chat,
      '-H',
      'Expect: 100-continue',
      '--data',
      '{"user_identifier":"u","session_id":"s-expect","message":"hi"}',
    ]);
    expect(answered.status).toBe(200);
    const large = join(folder.dir, 'large-body.json');
    writeFileSync(large, Buffer.alloc(100 * 1024 * 1024, 0x20));
    const rssBefore = residentKilobytes(platform.child.pid!);
    const tooLarge = curl([...chat, '--data-binary', `@${large}`]);
    const rssAfter = residentKilobytes(platform.child.pid!);
    console.info(`gateway RSS around a 100 MB edge body: ${rssBefore} kB before, ${rssAfter} kB after`);
    expect(tooLarge.status).toBe(413);
    expect(JSON.parse(tooLarge.body)).toMatchObject({ code: 'payload_too_large' });
  }, 60_000);

  it('restarts a killed replica and reports it, while the other keeps answering', async () => {
    const { serviceUrl } = actor('alpha');
    const victim = actor('alpha').replicas[0]!.pid!;
    process.kill(victim, 'SIGKILL');
    await eventually('the death report', () =>
      platform
        .stderr()
        .includes(`alpha replica 0 (pid ${victim}) exited with signal SIGKILL; restarting it in 0.5s (restart 1)`),
    );
    for (let turn = 0; turn < 4; turn++) expect(await instanceOf(serviceUrl)).toBe('alpha-1');
    await eventually('the restart report', () => platform.stderr().includes('alpha replica 0 restarted'));
    const seen = new Set<string>();
    await eventually('alpha-0 answering again', async () => {
      seen.add(await instanceOf(serviceUrl));
      return seen.has('alpha-0');
    });
  }, 60_000);

  it('drains on SIGTERM: every replica stopped, exit 0', async () => {
    const pids = platform.ready.actors
      .flatMap((hosted) => hosted.replicas.map((replica) => replica.pid!))
      .filter((pid) => alive(pid));
    platform.child.kill('SIGTERM');
    expect(await platform.exited).toBe(0);
    expect(platform.stderr()).toContain('actorkit platform: draining');
    expect(platform.stderr()).toContain('actorkit platform: stopped');
    for (const pid of pids) expect(alive(pid)).toBe(false);
  }, 60_000);
});

describe('actorkit platform refusals', () => {
  it('says what --replica-ports does in --help', () => {
    const help = spawnSync(process.execPath, [ACTORKIT_BINARY, 'platform', '--help'], { encoding: 'utf8' });
    expect(help.stdout).toContain('--replica-ports=<first-last>');
    expect(help.stdout).toContain('e.g. 9100-9199');
  });

  it('refuses a bad --replica-ports and one too small for the actors, with one clear line', () => {
    const refused = (args: readonly string[]) => {
      const run = runPlatformToEnd([alpha, ...args, '--state-dir', join(folder.dir, 'ports-state')], {
        cwd: folder.dir,
        env: platformEnv(),
      });
      expect(run.status).toBe(2);
      return run.stderr.trim().split('\n').at(-1);
    };
    expect(refused(['--replica-ports', '9199-9100'])).toBe(
      "error: --replica-ports takes first-last, two port numbers from 1 to 65535 with first <= last (e.g. 9100-9199), got '9199-9100'",
    );
    expect(refused(['--replica-ports', '9100-9100'])).toBe(
      'error: --replica-ports 9100-9100 holds 1 port, but the actors need 2 (one service address per actor and one port per replica)',
    );
  }, 60_000);

  it('refuses more than one replica on SQLite with one clear line', () => {
    const run = runPlatformToEnd([alpha, '--replicas', '2', '--state-dir', join(folder.dir, 'sqlite-state')], {
      cwd: folder.dir,
      env: platformEnv(),
    });
    expect(run.status).toBe(2);
    expect(run.stderr.trim().split('\n').at(-1)).toBe(
      'error: alpha: 2 replicas need one PostgreSQL they share: pass --database-url postgres://… (or set DATABASE_URL); SQLite is one file per process',
    );
  }, 60_000);

  it('refuses a secrets file others may read, before anything runs', () => {
    const secrets = join(folder.dir, 'open-secrets.env');
    writeFileSync(secrets, 'WEATHER_TOKEN=tok-never-printed\n');
    chmodSync(secrets, 0o644);
    const run = runPlatformToEnd([alpha, '--secrets', secrets], { cwd: folder.dir, env: platformEnv() });
    expect(run.status).toBe(2);
    expect(run.stderr.trim()).toBe(
      `error: the secrets file ${secrets} is readable by others (mode 0644): run chmod 600 ${secrets}`,
    );
  });

  it('refuses a secret missing from the secrets file, naming it, never printing a value', () => {
    const gamma = join(folder.dir, 'gamma');
    cpSync(alpha, gamma, { recursive: true, verbatimSymlinks: true });
    const manifestPath = join(gamma, 'package.json');
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    manifest.actorkit.deployment.env = { WEATHER_TOKEN: '${secret:WEATHER_TOKEN}' };
    writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));
    expect(
      spawnSync(process.execPath, [ACTORKIT_BINARY, 'validate', gamma, '--write'], { encoding: 'utf8' }).status,
    ).toBe(0);
    const secrets = join(folder.dir, 'gamma-secrets.env');
    writeFileSync(secrets, 'OTHER_TOKEN=sk-other-never-printed\n', { mode: 0o600 });
    const run = runPlatformToEnd([gamma, '--secrets', secrets], { cwd: folder.dir, env: platformEnv() });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(
      `error: alpha: deployment.env.WEATHER_TOKEN needs the secret WEATHER_TOKEN, but ${secrets} has no WEATHER_TOKEN`,
    );
    expect(`${run.stdout}${run.stderr}`).not.toContain('sk-other-never-printed');
  }, 60_000);

  it("refuses an invalid config.json with validate's bullets", () => {
    const broken = join(folder.dir, 'broken');
    cpSync(alpha, broken, { recursive: true, verbatimSymlinks: true });
    const configPath = join(broken, 'src', 'platform', 'config.json');
    const config = JSON.parse(readFileSync(configPath, 'utf8'));
    config.deployment.replicas = { min: 3, max: 1 };
    writeFileSync(configPath, JSON.stringify(config, null, 2));
    const run = runPlatformToEnd([broken], { cwd: folder.dir, env: platformEnv() });
    expect(run.status).toBe(2);
    const lines = run.stderr.trim().split('\n');
    expect(lines[0]).toMatch(
      /^error: .*config\.json is not valid, so the platform does not register it: \d+ problems? \(run actorkit validate /,
    );
    expect(lines.slice(1).length).toBeGreaterThan(0);
    for (const line of lines.slice(1)) expect(line).toMatch(/^- \[/);
    expect(run.stderr).toContain('/deployment/replicas');
  }, 60_000);
});
