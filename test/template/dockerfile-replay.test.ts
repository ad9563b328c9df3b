/**
 * Replays the Dockerfile of freshly rendered actors stage by stage on this host, because nothing
 * here can pull the `node` base image: each stage starts from an empty folder standing for its
 * `/`, gets exactly the files its `COPY` lines name (from the actor folder as the build context,
 * `.dockerignore` applied, or from an earlier stage's folder), and runs its `RUN` lines with
 * `sh -c` in its `WORKDIR`; the runtime stage's `CMD` must then answer `GET /ready` 200 with only
 * what that stage copied. The host's `node` and `npm` stand in for the base image's (see
 * base-image-stand-in.ts for the one command that cannot).
 *
 * How actorkit gets into the image: as a real build would, from a registry. actorkit is not on
 * the public registry, and the `file:` link `actorkit new` writes in a checkout points outside the
 * build context, so this test packs this checkout (`npm pack`, which builds it) and serves the
 * tarball from a fake registry on loopback that redirects every other package to the real
 * registry (`npm config get registry`). The actor's dependency becomes `^<version>` and its lock
 * file is made against that registry; `npm ci` gets the registry through `npm_config_registry`,
 * so the Dockerfile replayed is byte for byte the one that ships. All `npm` runs share one
 * download cache.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderActor } from '../../cli/render/render-actor.js';
import { deadPort, type LoopbackServer } from '../surfaces/loopback.js';
import { writeBaseImageStandIn } from './base-image-stand-in.js';
import { readBuildContext } from './build-context.js';
import { startFakeNpmRegistry } from './fake-npm-registry.js';
import { replayDockerfile, startReplayedCmd, type ReplayedStage } from './replay-dockerfile.js';
import { runShell } from './run-shell.js';

const ROOT = resolve(import.meta.dirname, '../..');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
} & Record<string, unknown>;
/** The vite of this checkout's lock (vitest's, in the actor's dev dependencies). */
const LOCKED_VITE: string = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')).packages[
  'node_modules/vite'
].version;
const scratch = mkdtempSync(join(tmpdir(), 'actorkit-dockerfile-replay-'));
const running: ChildProcess[] = [];
let registry: LoopbackServer;
let npmEnv: Record<string, string | undefined>;

afterAll(async () => {
  for (const child of running)
    if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
  await registry?.close();
  await rm(scratch, { recursive: true, force: true });
}, 180_000);

beforeAll(async () => {
  const upstream =
    (await runShell('npm config get registry', { cwd: ROOT, env: process.env, where: 'host:' }))
      .trim()
      .split('\n')
      .at(-1) ?? '';
  // `npm test` builds first (pretest); a focused run needs `npm run build` before it.
  if (!existsSync(join(ROOT, 'dist', 'src', 'index.js')))
    throw new Error('dist/ is missing: run `npm run build` first');
  await runShell(`npm pack --ignore-scripts --pack-destination '${scratch}' --silent`, {
    cwd: ROOT,
    env: process.env,
    where: 'host:',
  });
  registry = await startFakeNpmRegistry(
    { manifest, tarball: join(scratch, `${manifest.name}-${manifest.version}.tgz`) },
    upstream,
  );
  npmEnv = {
    PATH: `${writeBaseImageStandIn(join(scratch, 'base-image'))}:${process.env.PATH}`,
    HOME: join(scratch, 'home'),
    npm_config_registry: `${registry.url}/`,
    npm_config_cache: join(scratch, 'npm-cache'),
    npm_config_update_notifier: 'false',
  };
}, 240_000);

/** Renders an actor with `answers`, depending on the packed actorkit from the registry, with its lock file. */
async function renderForRegistry(name: string, answers: readonly string[]): Promise<string> {
  const target = join(scratch, 'actors', name);
  const result = await renderActor({
    actorName: name,
    targetDir: target,
    defaults: true,
    data: answers,
    io: { interactive: false, cwd: scratch },
  });
  expect(result.status, JSON.stringify(result)).toBe('ok');
  const packageJson = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8'));
  packageJson.dependencies.actorkit = `^${manifest.version}`;
  delete packageJson.allowScripts;
  // vitest's vite resolves as in this checkout's own lock: the replay checks the Dockerfile, not the
  // newest vite, and a vite released later (8.4.0) names an optional dependency the registry here
  // does not serve, which the fresh lock leaves out and `npm ci` then refuses as out of sync.
  packageJson.overrides = { vite: LOCKED_VITE };
  writeFileSync(join(target, 'package.json'), `${JSON.stringify(packageJson, null, 2)}\n`);
  await runShell('npm install --package-lock-only --ignore-scripts --no-audit --no-fund', {
    cwd: target,
    env: npmEnv,
    where: 'lock file:',
  });
  return target;
}

/** Replays the actor's Dockerfile (or `dockerfile`) into a fresh scratch folder. */
function replay(
  actorDir: string,
  dockerfile = readFileSync(join(actorDir, 'Dockerfile'), 'utf8'),
  cache?: readonly ReplayedStage[],
): Promise<ReplayedStage[]> {
  const workDir = mkdtempSync(join(scratch, 'stages-'));
  return replayDockerfile(dockerfile, {
    context: readBuildContext(actorDir),
    workDir,
    env: npmEnv,
    ...(cache ? { cache } : {}),
  });
}

/** Starts the runtime stage's CMD on a free port and resolves with the `/ready` answer, or rejects with its output. */
async function readyOfRuntime(
  stage: ReplayedStage,
  env: Record<string, string> = {},
): Promise<{ status: number; body: unknown }> {
  const port = await deadPort();
  const child = startReplayedCmd(stage, { PORT: String(port), DATA_DIR: mkdtempSync(join(scratch, 'data-')), ...env });
  running.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    for (
      const deadline = Date.now() + 60_000;
      Date.now() < deadline;
      await new Promise((wait) => setTimeout(wait, 200))
    ) {
      if (child.exitCode !== null) throw new Error(`the CMD exited with ${child.exitCode}:\n${output}`);
      const response = await fetch(`http://127.0.0.1:${port}/ready`).catch(() => undefined);
      if (response === undefined) continue;
      const ready = { status: response.status, body: (await response.json()) as { reason?: unknown } };
      // A 503 "starting" is the actor migrating its store: wait for the answer it settles on.
      if (ready.status !== 503 || ready.body.reason !== 'starting') return ready;
    }
    throw new Error(`the CMD did not answer /ready within 60 s:\n${output}`);
  } finally {
    if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
  }
}

/** The defaults actor and its replayed stages, for the tests that break one line of its Dockerfile. */
let defaults: { actorDir: string; dockerfile: string; stages: readonly ReplayedStage[] } | undefined;

describe('the rendered Dockerfile, replayed stage by stage', () => {
  it.concurrent.each([
    ['defaults', [], {}],
    ['panel-n8n', ['include_panel=true', 'integration_type=n8n'], { WORKFLOW_BASE_URL: 'http://127.0.0.1:9/webhook' }],
    ['mesh', ['fleet_mesh=true'], { MESH_KEY: 'replay-mesh-key' }],
  ] as const)(
    'builds, and the runtime stage answers /ready 200 with only what it copied (%s)',
    async (name, answers, env) => {
      const actorDir = await renderForRegistry(name, answers);
      const dockerfile = readFileSync(join(actorDir, 'Dockerfile'), 'utf8');
      const stages = await replay(actorDir, dockerfile);
      expect(stages.map((stage) => stage.name)).toEqual(['deps', 'build', 'runtime']);
      const runtime = stages.at(-1) as ReplayedStage;
      expect(runtime.env).toMatchObject({ NODE_ENV: 'production', ACTOR_PLATFORM: 'true' });
      const ready = await readyOfRuntime(runtime, env);
      expect(ready).toMatchObject({ status: 200, body: { status: 'ready' } });
      if (name === 'defaults') defaults = { actorDir, dockerfile, stages };
    },
    240_000,
  );
});

describe('the replay catches a Dockerfile that would not work', () => {
  /** The defaults actor's Dockerfile with one line removed; the line must be there. */
  function without(line: string): string {
    const { dockerfile } = defaults ?? expect.fail('the defaults replay did not pass');
    expect(dockerfile.split('\n')).toContain(line);
    return dockerfile.replace(`${line}\n`, '');
  }

  it('fails when a file the build needs is left out of a COPY, naming the file', async () => {
    const { actorDir, stages } = defaults ?? expect.fail('the defaults replay did not pass');
    const replayed = replay(actorDir, without('COPY tsconfig.json tsconfig.build.json ./'), stages);
    await expect(replayed).rejects.toThrow(
      /^stage build, line \d+: RUN npm run build exited with [1-9][\s\S]*tsconfig\.build\.json/,
    );
  }, 120_000);

  it('fails when the runtime stage leaves out what its CMD needs', async () => {
    const { actorDir, stages } = defaults ?? expect.fail('the defaults replay did not pass');
    const replayed = await replay(actorDir, without('COPY --from=deps /app/node_modules ./node_modules'), stages);
    expect(replayed.slice(0, 2)).toEqual(stages.slice(0, 2));
    await expect(readyOfRuntime(replayed.at(-1) as ReplayedStage)).rejects.toThrow(
      /the CMD exited with 1:[\s\S]*Cannot find package 'actorkit'/,
    );
  }, 120_000);

  it('fails when a COPY names a path the .dockerignore keeps out of the build context', async () => {
    const { actorDir } = defaults ?? expect.fail('the defaults replay did not pass');
    const dockerfile = 'FROM node:20.19-bookworm-slim AS build\nWORKDIR /app\nCOPY src ./src\nCOPY test ./test\n';
    await expect(replay(actorDir, dockerfile)).rejects.toThrow(
      'stage build, line 4: COPY test: not in the build context (excluded by .dockerignore)',
    );
  });

  it('refuses an instruction it cannot perform faithfully', async () => {
    const { actorDir } = defaults ?? expect.fail('the defaults replay did not pass');
    await expect(
      replay(actorDir, 'FROM node:20.19-bookworm-slim AS build\nADD https://example.com/x.tgz ./\n'),
    ).rejects.toThrow('Dockerfile line 2: ADD is not supported; the replay cannot perform it');
  });
});
