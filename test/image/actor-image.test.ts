/**
 * A real image of a rendered actor, the way an author ships it: `actorkit new` (from this
 * checkout, so the actor carries actorkit as `vendor/actorkit-<version>.tgz`), `npm install`, then
 * the actor's own `npx actorkit publish . --yes` builds its unchanged Dockerfile with podman (or
 * buildah) and pushes it to a real OCI registry on loopback. The image is removed locally, pulled back and run:
 * it must answer `/ready` and an invoke, run as a non-root user, keep its SQLite file in the data
 * volume across a restart, stop on SIGTERM within the grace period, and carry no test toolchain.
 *
 * Machine facts (not the user's): `node:20.19-bookworm-slim` is a local stand-in (see
 * make-base-image.sh), and podman runs with the runtime and limits of `writeEngineConfig`.
 *
 * The podman case is then rehearsed as `actorkit platform --image` runs it (pulled from the
 * registry, its replicas containers behind the gateway and the edge), with the refusals of a
 * reference the registry lacks and of a machine without an engine.
 *
 * The three cases run concurrently: each spends most of its time in child processes (npm, the
 * engine, the container), and nothing is shared between them but the registry, which takes
 * concurrent pushes; each has its own actor folder, image name and volume.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { beforeAll, describe, type ExpectStatic, it } from 'vitest';
import { ensureBuilt, REPOSITORY_ROOT } from '../support/built-package.js';
import { eventually, runPlatformToEnd, startPlatform } from '../platform/platform-actors.js';
import { imageDataVolume } from '../../platform/hosted-image.js';
import {
  imageEnginesReady,
  isProductionToolchain,
  runCommand,
  runContainer,
  useImageWorkspace,
  type RunningContainer,
} from './support/index.js';

const VERSION = (JSON.parse(readFileSync(join(REPOSITORY_ROOT, 'package.json'), 'utf8')) as { version: string })
  .version;
const MESH_KEY = 'image-test-mesh-key-0123456789';

/** One way to render the actor, with the environment its options need and what it must serve. */
interface ActorOptions {
  readonly name: string;
  /** The container CLI `publish` builds and pushes with. */
  readonly engine: 'podman' | 'buildah';
  readonly data: readonly string[];
  readonly environment: Readonly<Record<string, string>>;
  /** Whether `actorkit platform --image` then hosts the pulled image (one case: the platform run is the same for all). */
  readonly rehearse?: boolean;
  /** Checks of this option set, with the running test's `expect` (the cases run concurrently). */
  readonly check?: (container: RunningContainer, domain: string, expect: ExpectStatic) => Promise<void>;
}

const CASES: readonly ActorOptions[] = [
  { name: 'img-defaults', engine: 'podman', data: [], environment: {}, rehearse: true },
  {
    name: 'img-panel-n8n',
    engine: 'buildah',
    data: ['include_panel=true', 'integration_type=n8n'],
    environment: { WORKFLOW_BASE_URL: 'http://127.0.0.1:9' },
    check: async (container, _domain, expect) => {
      const panel = await fetch(`${container.url}/panel/stats`);
      expect(panel.status).toBe(200);
      expect(panel.headers.get('content-type')).toMatch(/^text\/html/);
    },
  },
  {
    name: 'img-mesh-mcp',
    engine: 'podman',
    data: ['fleet_mesh=true', 'expose_mcp=true'],
    environment: { MESH_KEY },
    check: async (container, domain, expect) => {
      const paths = Object.keys(
        ((await (await fetch(`${container.url}/openapi.json`)).json()) as { paths: Record<string, unknown> }).paths,
      );
      const peerRead = paths.find((path) => path.startsWith(`/api/${domain}/`) && !path.includes('{'));
      expect(peerRead, paths.join(' ')).toBeDefined();
      expect((await fetch(`${container.url}${peerRead}`)).status).toBe(401);
      expect((await fetch(`${container.url}${peerRead}`, { headers: { 'x-mesh-key': MESH_KEY } })).status).toBe(200);
      const client = new Client({ name: 'image-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${container.url}/mcp`)));
      try {
        const tools = await client.listTools();
        expect(tools.tools.map((tool) => tool.name)).toContain('chat');
      } finally {
        await client.close();
      }
    },
  },
];

describe.runIf(imageEnginesReady())(
  'a rendered actor shipped as a real image: new, npm install, publish with podman, pull, run',
  () => {
    const workspace = useImageWorkspace('actorkit-actor-image-');
    const run = randomUUID().slice(0, 8);
    beforeAll(() => ensureBuilt());

    it.concurrent.for(CASES)(
      '$name, published with $engine: the pulled image is ready, answers an invoke as a non-root user, keeps SQLite in its volume across a restart, stops on SIGTERM, carries no test toolchain',
      { timeout: 900_000 },
      async ({ name, engine, data, environment, check, rehearse }, { expect }) => {
        const { dir, registry, env: engineEnv } = workspace;
        const repo = `${registry.host}/actors/${name}`;
        const image = `${repo}:v0.1.0`;
        const volume = `${name}-${run}-data`;
        workspace.cleanup(() => runCommand('podman', ['rmi', '--force', '--ignore', image], { env: engineEnv }));
        workspace.cleanup(() => runCommand('podman', ['volume', 'rm', '--force', volume], { env: engineEnv }));
        const actor = join(dir, name);
        const cli = join(REPOSITORY_ROOT, 'dist', 'cli', 'main.js');
        await runCommand(
          process.execPath,
          [
            cli,
            'new',
            name,
            actor,
            '--defaults',
            '--data',
            `image_repo=${repo}`,
            ...data.flatMap((pair) => ['--data', pair]),
          ],
          {
            cwd: dir,
            env: process.env,
          },
        );
        expect(readdirSync(join(actor, 'vendor'))).toEqual([`actorkit-${VERSION}.tgz`]);
        await runCommand('npm', ['install', '--no-audit', '--no-fund'], {
          cwd: actor,
          env: process.env,
          timeoutMs: 300_000,
        });

        const published = await runCommand('npx', ['actorkit', 'publish', '.', '--yes'], {
          cwd: actor,
          env: { ...engineEnv, ACTORKIT_CONTAINER_CLI: engine },
          timeoutMs: 600_000,
        });
        expect(published).toContain(`Pushed ${image}`);
        const tags = (await (await fetch(`${registry.url}/v2/actors/${name}/tags/list`)).json()) as { tags: string[] };
        expect(tags.tags).toEqual(['v0.1.0']);
        await runCommand('podman', ['rmi', '--force', image], { env: engineEnv });
        await runCommand('podman', ['pull', '--quiet', image], { env: engineEnv, timeoutMs: 300_000 });

        const modules = await runCommand('podman', ['run', '--rm', '--entrypoint', 'ls', image, '/app/node_modules'], {
          env: engineEnv,
        });
        const installed = modules.trim().split('\n');
        expect(installed).toContain('actorkit');
        expect(installed.filter(isProductionToolchain)).toEqual([]);
        const engines = (
          await runCommand('podman', ['run', '--rm', '--entrypoint', 'ls', image, '/app/node_modules/@libsql'], {
            env: engineEnv,
          })
        )
          .trim()
          .split('\n');
        expect(engines).toContain('linux-x64-gnu');
        expect(engines.filter((entry) => entry.endsWith('-musl'))).toEqual([]);

        const container = await runContainer({
          image,
          engineEnv,
          port: 8080,
          environment,
          volumes: [{ source: volume, target: '/app/data' }],
        });
        workspace.cleanup(() => container.remove());
        await container.waitForHttp('/ready', { timeoutMs: 60_000 });
        const invoke = await fetch(`${container.url}/agent/invoke`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ user_identifier: 'me', session_id: 's1', message: 'hello from the image test' }),
        });
        expect(invoke.status, await invoke.clone().text()).toBe(200);
        expect(((await invoke.json()) as { status: string }).status).toBe('completed');
        expect(await container.inspect('{{.Config.User}}')).toBe('node');
        const processUser = await runCommand(
          'podman',
          ['exec', container.id, 'sh', '-c', 'grep ^Uid: /proc/1/status'],
          { env: engineEnv },
        );
        expect(processUser).toMatch(/^Uid:\s+1000\s/);
        await check?.(container, name.replace(/-/g, ''), expect);

        const mountpoint = (
          await runCommand('podman', ['volume', 'inspect', '--format', '{{.Mountpoint}}', volume], { env: engineEnv })
        ).trim();
        expect(readdirSync(mountpoint).some((file) => file.endsWith('.db') || file.endsWith('.sqlite'))).toBe(true);

        const stopped = await container.stop(15);
        expect(stopped.exitCode).toBe(0);
        expect(stopped.elapsedMs).toBeLessThan(15_000);
        expect(await container.logs()).toMatch(/shutdown|drain|stopp/i);
        await container.start();
        await container.waitForHttp('/ready', { timeoutMs: 60_000 });
        const stats = (await (await fetch(`${container.url}/stats`)).json()) as { invocations: number };
        expect(stats.invocations).toBe(1);
        expect(existsSync(mountpoint)).toBe(true);
        if (rehearse) await rehearseOnPlatform(image, join(dir, `${name}-platform`), engineEnv, expect);
      },
    );
  },
);

/** The names of the containers `actorkit platform` runs for the actor `ref`, running or not. */
async function platformContainers(ref: string, engineEnv: Readonly<Record<string, string | undefined>>) {
  const names = await runCommand(
    'podman',
    ['ps', '--all', '--filter', `name=actorkit-${ref}-`, '--format', '{{.Names}}'],
    {
      env: engineEnv,
    },
  );
  return names.split('\n').filter((line) => line.trim() !== '');
}

/**
 * `actorkit platform --image <image>` as a user runs it: up with its ready line, a chat through the
 * edge with the instance key and `/health` through the edge answer 200, the replica refuses a
 * request without the run secret (403 `not_from_platform`), a killed container is restarted, and
 * SIGTERM leaves no container; a reference the registry lacks and a PATH without an engine are
 * one line and a non-zero exit, with no container left.
 */
async function rehearseOnPlatform(
  image: string,
  stateDir: string,
  engineEnv: Readonly<Record<string, string | undefined>>,
  expect: ExpectStatic,
): Promise<void> {
  mkdirSync(stateDir, { recursive: true });
  const env = { ...engineEnv, DATABASE_URL: undefined, ACTORKIT_CONTAINER_CLI: undefined };
  const platform = await startPlatform(['--image', image, '--state-dir', stateDir], { cwd: stateDir, env });
  try {
    const [hosted] = platform.ready.actors;
    expect(hosted?.image).toBe(image);
    const ref = hosted?.ref ?? '';
    expect(await platformContainers(ref, engineEnv)).toHaveLength(1);
    const edge = (path: string, init: RequestInit = {}) =>
      fetch(`${hosted?.edgeUrl}${path}`, {
        ...init,
        headers: { 'x-api-key': hosted?.edgeKey ?? '', 'content-type': 'application/json' },
      });
    const chat = await edge('chat', {
      method: 'POST',
      body: JSON.stringify({ user_identifier: 'u', session_id: 's-image', message: 'hello through the edge' }),
    });
    expect(chat.status, await chat.clone().text()).toBe(200);
    expect((await edge('health')).status).toBe(200);
    const direct = await fetch(`${hosted?.replicas[0]?.url}/stats`);
    expect(direct.status).toBe(403);
    expect(((await direct.json()) as { code: string }).code).toBe('not_from_platform');

    const [first] = await platformContainers(ref, engineEnv);
    await runCommand('podman', ['kill', first ?? ''], { env: engineEnv });
    await eventually('the restart report', () => /replica 0 \(pid \d+\) exited with code/.test(platform.stderr()));
    await eventually(
      'the restarted replica behind the edge',
      async () => (await edge('health').catch(() => undefined))?.status === 200,
      60_000,
    );
    expect((await platformContainers(ref, engineEnv)).filter((name) => name !== first)).toHaveLength(1);
  } finally {
    platform.child.kill('SIGTERM');
  }
  expect(await platform.exited).toBe(0);
  const ref = platform.ready.actors[0]?.ref ?? '';
  expect(await platformContainers(ref, engineEnv)).toEqual([]);
  // The SQLite volume stays between runs, as the state folder does; the test removes it.
  await runCommand('podman', ['volume', 'rm', '--force', imageDataVolume(ref, stateDir)], { env: engineEnv });

  const missing = runPlatformToEnd(['--image', `${image}-not-pushed`, '--state-dir', stateDir], { cwd: stateDir, env });
  expect(missing.status).toBe(1);
  expect(missing.stderr.trim().split('\n')).toHaveLength(1);
  expect(missing.stderr).toMatch(/^error: podman could not pull .*-not-pushed: /);
  expect(await platformContainers(ref, engineEnv)).toEqual([]);

  const noEngine = runPlatformToEnd(['--image', image, '--state-dir', stateDir], {
    cwd: stateDir,
    env: { ...env, PATH: '/nonexistent' },
  });
  expect(noEngine.status).toBe(2);
  expect(noEngine.stderr.trim()).toBe(
    'error: actorkit platform --image runs containers with an engine and found none of podman, docker on PATH: install one, or name it in ACTORKIT_CONTAINER_CLI; nothing was pulled or run',
  );
}
